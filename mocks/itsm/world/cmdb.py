"""Configuration items (``cmdb_ci`` and subclasses) and knowledge articles (``kb_knowledge``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random

from enterprise_envs.mocks.itsm import world_data as bank
from enterprise_envs.mocks.itsm.world.common import (
    ADMIN_USER_NAME,
    DAY,
    HOUR,
    SERVICE_DESK,
    YEAR,
    Person,
    Row,
    World,
    between,
    fmt,
    fmt_date,
    stamps,
)
from enterprise_envs.mocks.itsm.world.people import member_of

FQDN_DOMAIN = "corp.example.com"

#: Which group writes the knowledge articles of each category (else the Service Desk).
_KB_AUTHOR_GROUPS = {
    "Email": "Email", "Network": "Network", "Hardware": "Hardware", "Printing": "Hardware",
    "Accounts and Access": "Identity and Access", "Security": "Identity and Access",
    "Database": "Database", "Software": "Applications", "Collaboration": "Applications",
}  # fmt: skip
#: Share of each CI family in the CMDB (see :func:`_ci_family`).
_CI_FAMILY_SHARES = {"computer": 0.40, "server": 0.30, "network": 0.12, "application": 0.18}
#: Weight of a bank CI kind within its family (kinds not listed weigh 1): PCs outnumber Macs.
_CI_KIND_WEIGHTS = {"laptop": 6, "macbook": 1, "network_switch": 3}
#: Second octet of each hardware family's 10.x address block.
_IP_BLOCKS = {"network": 1, "server": 10, "computer": 50}
_SERIAL_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"


def _ci_family(spec: Mapping[str, object]) -> str:
    """``application``, ``server``, ``network`` or ``computer``, from a bank CI kind."""
    if spec["names"] or spec["subcategory"] == "Application":
        return "application"
    if "server" in str(spec["sys_class_name"]):
        return "server"
    return "network" if spec["subcategory"] == "Network" else "computer"


def _ci_targets(world: World) -> list[int]:
    """CIs per bank kind: one of each, the rest by family share and kind weight.

    Fixed-name kinds (applications) are capped at their names; what they cannot hold goes to
    end-user computers.
    """
    specs = bank.CI_CATALOG
    families = [_ci_family(spec) for spec in specs]
    targets = [1] * len(specs)
    left = max(0, world.counts["cis"] - len(specs))
    for family, share in _CI_FAMILY_SHARES.items():
        members = [i for i, name in enumerate(families) if name == family]
        weights = [_CI_KIND_WEIGHTS.get(str(specs[i]["kind"]), 1) for i in members]
        for i, weight in zip(members, weights, strict=True):
            targets[i] += round(share * left * weight / sum(weights))
    for i, spec in enumerate(specs):
        if spec["names"]:
            targets[i] = min(targets[i], len(spec["names"]))
    # Rounding and capped kinds leave a few over: they go to end-user computers.
    overflow = next((i for i, name in enumerate(families) if name == "computer"), None)
    if overflow is not None:
        targets[overflow] += max(0, world.counts["cis"] - sum(targets))
    return targets


def build_cis(world: World) -> None:
    """cmdb_ci: end-user computers (one per person, as far as they go), servers, network gear, apps."""
    # Callers get computers first, so their incidents can name their own machine.
    owners = iter([p for p in [*world.employees, *world.staff, world.agent] if p is not None and p.active])
    used: set[str] = set()
    rows: list[Row] = []
    for spec, count in zip(bank.CI_CATALOG, _ci_targets(world), strict=True):
        family, kind = _ci_family(spec), spec["kind"]
        world.family_of_kind[kind] = family
        for index in range(count):
            owner = next(owners, None) if family == "computer" else None
            name = (
                spec["names"][index]
                if spec["names"]
                else _ci_name(world.rng, spec["name_patterns"], used, owner)
            )
            used.add(name)
            row = _ci_row(world, spec, family, name, len(rows))
            if owner is not None:
                world.computer_of[owner.sys_id] = row
            world.cis_by_kind.setdefault(kind, []).append(row)
            world.cis_by_family.setdefault(family, []).append(row)
            world.ci_kind[row["sys_id"]] = kind
            rows.append(row)
    world.add("cmdb_ci", rows)


def _ci_name(rng: Random, patterns: Sequence[str], used: set[str], owner: Person | None) -> str:
    """An unused name from a kind's patterns; a personal computer carries its owner's number."""
    pattern = rng.choice(patterns)
    n = int(owner.employee_number) % 100000 if owner is not None else 1
    while pattern.format(n=n) in used:
        n += 1
    return pattern.format(n=n)


def _ip(index: int, block: int) -> str:
    """A unique private address in a 10.x block per CI family."""
    return f"10.{block + index // 64516}.{(index // 254) % 254}.{index % 254 + 1}"


def _ci_row(world: World, spec: Mapping[str, object], family: str, name: str, index: int) -> Row:
    """One configuration item."""
    rng = world.rng
    installed = world.now - rng.randint(30 * DAY, 5 * YEAR)
    hardware = family in _IP_BLOCKS
    status = str(spec["operational_status"])
    if hardware and rng.random() < 0.05:
        status = rng.choice(("2", "3"))  # Non-Operational, Repair in Progress
    models: Sequence[str] = spec["model_numbers"]  # type: ignore[assignment]
    return {
        "sys_id": world.sys_id(),
        "name": name,
        "category": str(spec["category"]),
        "subcategory": str(spec["subcategory"]),
        "serial_number": "".join(rng.choices(_SERIAL_ALPHABET, k=10)) if hardware else "",
        "asset_tag": f"P{100001 + index:06d}" if hardware else "",
        "ip_address": _ip(index, _IP_BLOCKS[family]) if hardware else "",
        "mac_address": ":".join(f"{rng.getrandbits(8):02x}" for _ in range(6)) if hardware else "",
        "fqdn": f"{name.lower()}.{FQDN_DOMAIN}" if hardware else "",
        "model_number": rng.choice(models) if models else "",
        "operational_status": status,
        "install_date": fmt(installed),
        "warranty_expiration": fmt_date(installed + 3 * YEAR) if hardware else "",
        "fault_count": "0",
        "created_on": fmt(installed),
        "created_by": ADMIN_USER_NAME,
        "updated_on": fmt(installed),
        "updated_by": ADMIN_USER_NAME,
    }


def build_knowledge(world: World) -> None:
    """kb_knowledge: every bank topic (about 8% retired) plus a few draft revisions."""
    rng = world.rng
    topics = list(bank.KB_TOPICS.values())
    retired = set(rng.sample(range(len(topics)), round(0.08 * len(topics))))
    drafts = rng.sample([i for i in range(len(topics)) if i not in retired], min(3, len(topics)))
    planned = [
        (_kb_article(world, topic, "retired" if i in retired else "published"))
        for i, topic in enumerate(topics)
    ]
    planned += [_kb_article(world, topics[i], "draft") for i in drafts]
    planned.sort(key=lambda item: item[0])
    for _, row in planned:
        row["number"] = world.build.number("kb_knowledge")
    world.add("kb_knowledge", [row for _, row in planned])


def _kb_article(world: World, topic: Mapping[str, object], workflow: str) -> tuple[int, Row]:
    """One article in the given workflow state, with its creation time for numbering."""
    rng, now = world.rng, world.now
    category = str(topic["category"])
    author = member_of(world, _KB_AUTHOR_GROUPS.get(category, SERVICE_DESK))
    if workflow == "draft":
        created = now - rng.randint(2 * DAY, 30 * DAY)
        published, updated = 0, created + rng.randint(0, DAY)
    else:
        # Written while the author worked here (accounts date from the hire).
        created = now - between(rng, 90 * DAY, min(4 * YEAR, now - author.hired - DAY))
        published = created + rng.randint(HOUR, 10 * DAY)
        updated = between(rng, published, now - DAY)
    retired = between(rng, published + 60 * DAY, now - DAY) if workflow == "retired" else 0
    views = int(rng.paretovariate(1.2) * 40) if workflow != "draft" else 0
    row = {
        "sys_id": world.sys_id(),
        "short_description": str(topic["short_description"]),
        "text": str(topic["text"]),
        "author": author.sys_id,
        "workflow_state": workflow,
        "active": "false" if workflow == "retired" else "true",
        "published": fmt_date(published) if published else "",
        "retired": fmt_date(retired) if retired else "",
        "valid_to": "2100-01-01",
        "kb_category": "",
        "article_type": "text",
        "topic": category,
        "category": category,
        "meta": ", ".join(topic["keywords"]),  # type: ignore[arg-type]
        "sys_view_count": str(views),
        "use_count": str(views // rng.randint(3, 12)),
        "roles": "",
        "direct": "false",
        "flagged": "false",
        "disable_commenting": "false",
        "disable_suggesting": "false",
        "display_attachments": "false",
        "sys_class_name": "kb_knowledge",
        "sys_domain": "global",
        "sys_domain_path": "/",
        **stamps(created, author.user_name, max(updated, retired), author.user_name, 1 + (retired > 0)),
    }
    return created, row


def pick_ci(world: World, kind: object, owner: Person | None = None) -> Row | None:
    """A CI of the given bank kind: the owner's own computer if it is one, else any of the kind."""
    if not kind:
        return None
    own = world.computer_of.get(owner.sys_id) if owner is not None else None
    if own is not None and world.ci_kind[own["sys_id"]] == kind:
        return own
    found = world.cis_by_kind.get(str(kind)) or world.cis_by_family.get(
        world.family_of_kind.get(str(kind), "")
    )
    return world.rng.choice(found) if found else None


def any_ci(world: World, *families: str) -> Row | None:
    """A random CI from the given families."""
    found = [row for family in families for row in world.cis_by_family.get(family, [])]
    return world.rng.choice(found) if found else None
