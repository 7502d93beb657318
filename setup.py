"""Package list for setuptools; everything else is in pyproject.toml.

The source folders mocks/, scenarios/ and verifiers/ install as subpackages of
enterprise_envs (see [tool.setuptools] package-dir), so their subpackages are listed here
under the enterprise_envs prefix instead of being found as top-level packages.
"""

from setuptools import find_packages, setup

MAPPED = ("mocks", "scenarios", "verifiers")

packages = find_packages(include=["enterprise_envs", "enterprise_envs.*"])
for top in MAPPED:
    packages.append(f"enterprise_envs.{top}")
    packages += [f"enterprise_envs.{top}.{name}" for name in find_packages(where=top)]

setup(packages=packages)
