"""The chat services: every Slack rule, once, on the table it guards (importing registers them).

- :mod:`.common`: naming conversations, members, groups and messages; cursors; ``ts``.
- :mod:`.conversations`: channels and direct conversations, names, topics, archiving, members.
- :mod:`.messages`: posting, threads, edits, deletes, permalinks, reactions, history.
- :mod:`.usergroups`: user groups and their members; listing members.

Both surfaces (``rest``, the Web API's methods; ``typed``, task-level tools) call these, so the
same goal reached through either leaves the same rows.
"""

from enterprise_envs.mocks.chat.services import conversations, messages, usergroups

__all__ = ["conversations", "messages", "usergroups"]
