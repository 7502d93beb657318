"""The identity service layer: every rule of the Okta mock, enforced once.

Both tool surfaces call these functions, so a rule holds whichever surface the agent uses:

- :mod:`.lifecycle`: the user status machine (:data:`~.lifecycle.MOVES`), its side effects and
  one-time tokens;
- :mod:`.membership`: group membership (OKTA_GROUPs only, idempotent), with its table rules;
- :mod:`.apps`: app assignments, group reconciliation and deprovisioning;
- :mod:`.factors`: enrolled factors and unenrolling one;
- :mod:`.directory`: listing users and groups with ``q``/``filter``/``search``, a user's groups,
  a group's members, profile updates and admin roles;
- :mod:`.listing`: cursor pagination;
- :mod:`.events`: the System Log every write appends to;
- :mod:`.common`: finding users, groups and apps as Okta (and people) name them.

Importing this package registers the table rules with the identity record engine.
"""

from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services.directory import UserRules
from enterprise_envs.mocks.identity.services.membership import GroupMemberRules

if not ENGINE.rules:
    ENGINE.register("group_member", GroupMemberRules())
    ENGINE.register("user", UserRules())
