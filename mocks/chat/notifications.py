"""What the chat system shows a person on its own: the only state a simulated user sees of it.

A person sees what lands in their Slack client:

- ``message.direct``: a message in a direct conversation with them (a DM from the IT bot), with
  its text;
- ``channel_member.added``: they were added to a channel (Slack tells the person, and the
  channel appears in their sidebar), with the channel's name;
- ``channel.archived``: a channel they created was archived (Slack shows it to its members;
  the creator is the member the row names), with its name;
- ``message.yours``: a message appeared under their own name (they see it in their client),
  with its text. Only they can post as themselves, so in an episode this stays silent unless
  something posted as them.

Messages in channels are not notifications here: a person does not read every channel they are
in, and a scenario that needs them to see a channel post says so with a DM. Each notice shows
the fields listed and nothing else.
"""

from __future__ import annotations

from enterprise_envs.mocks._core.observables import NotificationRule

CHAT_NOTIFICATIONS: tuple[NotificationRule, ...] = (
    NotificationRule(
        "message.direct",
        "message",
        "insert",
        ("user",),
        ("text",),
        when={},
        about=("", "channel"),
        about_table="channel",
    ),
    NotificationRule("channel_member.added", "channel_member", "insert", ("user",), ("channel",)),
    NotificationRule(
        "channel.archived",
        "channel",
        "update",
        ("creator",),
        ("name",),
        when={"is_archived": ("true",)},
        was={"is_archived": ("false",)},
    ),
    NotificationRule("message.yours", "message", "insert", ("user",), ("text",)),
)
