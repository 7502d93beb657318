"""The call pipeline on a real ITSM backend: validation, injected faults, the wait tool,
handler bugs, read-only enforcement, and determinism of whole call sequences."""

from __future__ import annotations

import dataclasses

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.faults import FaultConfig, RateLimit
from enterprise_envs.mocks._core.snapshot import get_snapshot
from enterprise_envs.mocks._core.tools import Surface, Tool, ToolKind, obj
from enterprise_envs.mocks.itsm import ITSM


def test_schema_errors_name_the_field_and_change_nothing(itsm: Backend) -> None:
    before = itsm.serialize()
    result = itsm.call("create_incident", {"caller": "abel.tuter", "short_description": "x", "impact": "7"})
    assert result.status == 400
    assert result.body == {
        "error": {"message": "Invalid argument 'impact'", "detail": "'7' is not one of ['1', '2', '3']"},
        "status": "failure",
    }
    missing = itsm.call("get_incident", {})
    assert missing.status == 400 and missing.body["error"]["message"] == "Missing required argument: number"
    extra = itsm.call("get_incident", {"number": "INC0010001", "sql": "1"})
    assert extra.status == 400 and extra.body["error"]["message"] == "Unknown argument"
    not_an_object = itsm.call("get_incident", ["INC0010001"])
    assert not_an_object.status == 400
    assert itsm.serialize() == before


def test_rate_limit_is_injected_logged_and_recovered_with_wait() -> None:
    backend = Backend(ITSM, size="tiny")
    backend.reset(episode_seed=3, faults=FaultConfig(rate_limit=RateLimit(calls=2, window_seconds=60)))
    assert backend.call("list_groups", {}).ok and backend.call("list_groups", {}).ok
    limited = backend.call("list_groups", {})
    assert limited.status == 429 and limited.injected and limited.error == "rate_limited"
    assert limited.body["error"]["message"] == "Rate limit exceeded"
    assert {"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Reset", "X-RateLimit-Rule"} <= set(
        limited.headers
    )
    assert [event.tool for event in backend.faults.log] == ["list_groups"]
    waited = backend.call("wait", {"seconds": int(limited.headers["Retry-After"])})
    assert waited.ok
    assert backend.call("list_groups", {}).ok


def test_transient_faults_follow_the_episode_seed() -> None:
    def statuses(seed: int) -> list[int]:
        backend = Backend(ITSM, size="tiny")
        backend.reset(episode_seed=seed, faults=FaultConfig(unavailable_p=0.3, timeout_p=0.1))
        return [backend.call("list_groups", {}).status for _ in range(40)]

    first = statuses(5)
    assert first == statuses(5)
    assert {503, 504} <= set(first) and 200 in first
    assert first != statuses(6)


def test_page_size_cap_shortens_pages_but_not_the_total() -> None:
    backend = Backend(ITSM, size="tiny", surface="rest")
    backend.reset(faults=FaultConfig(page_size_cap=3))
    result = backend.call("table_list", {"table": "incident", "sysparm_limit": 20})
    assert len(result.body["result"]) == 3
    assert int(result.headers["X-Total-Count"]) == backend.store.count("incident") > 3


def _broken_system():
    """ITSM plus a surface whose tools misbehave the way a buggy handler could."""

    def write_then_crash(ctx, args):
        row = ctx.store.select("incident", limit=1)[0]
        ctx.store.update("incident", row["sys_id"], {"short_description": "half-written"})
        raise RuntimeError("bug in a handler")

    def read_tool_that_writes(ctx, args):
        row = ctx.store.select("incident", limit=1)[0]
        ctx.store.update("incident", row["sys_id"], {"short_description": "sneaky"})
        return {}

    def surface() -> Surface:
        return Surface(
            "broken",
            [
                Tool("write_then_crash", "test", obj({}), obj({}), ToolKind.WRITE, write_then_crash),
                Tool("read_tool_that_writes", "test", obj({}), obj({}), ToolKind.READ, read_tool_that_writes),
            ],
        )

    return dataclasses.replace(ITSM, surfaces={**ITSM.surfaces, "broken": surface})


@pytest.mark.parametrize("tool", ["write_then_crash", "read_tool_that_writes"])
def test_handler_bugs_roll_back_and_are_reported_as_internal(tool: str) -> None:
    backend = Backend(_broken_system(), size="tiny", surface="broken")
    before = backend.serialize()
    result = backend.call(tool, {})
    assert result.status == 500 and result.error == "internal" and not result.injected
    assert backend.serialize() == before
    assert backend.internal_errors and backend.internal_errors[0]["tool"] == tool
    assert backend.store.changed_rows() == []


def test_same_seed_and_calls_give_the_same_results_and_state() -> None:
    calls = [
        ("search_incidents", {"active": True, "limit": 3}),
        ("create_incident", {"caller": "sd.agent", "short_description": "Monitor flickers", "urgency": "2"}),
        ("list_groups", {}),
    ]

    def play(seed: int) -> tuple[list[str], bytes]:
        backend = Backend(ITSM, size="tiny")
        backend.reset(episode_seed=seed, faults=FaultConfig(unavailable_p=0.2))
        outputs = [backend.call(tool, args).to_json(full=True) for tool, args in calls]
        return outputs, backend.serialize()

    assert play(11) == play(11)
    assert play(11)[0] != play(12)[0] or play(11)[1] != play(12)[1]


def test_reset_restores_the_world_exactly(itsm: Backend) -> None:
    pristine = itsm.serialize()
    itsm.call("create_incident", {"caller": "sd.agent", "short_description": "Keyboard missing keys"})
    assert itsm.serialize() != pristine
    itsm.reset()
    assert itsm.serialize() == pristine
    assert itsm.call_index == 0 and itsm.faults.log == []


def test_reset_rolls_the_episode_back_to_the_snapshot_byte_for_byte() -> None:
    backend = Backend(ITSM, size="tiny", world_seed=0)
    assert backend.store.last_restore == "deserialize"
    incident = backend.store.column_values("incident", "number", "active = 'true'")[0]
    assert backend.call(
        "create_incident", {"caller": "sd.agent", "short_description": "Keyboard missing keys"}
    ).ok
    assert backend.call("add_comment", {"number": incident, "text": "Looking into it."}).ok
    backend.call("get_incident", {"number": "INC9999999"})  # a failed call too
    backend.reset(episode_seed=1)
    assert backend.store.last_restore == "rollback"
    assert (
        backend.store.changed_rows() == []
        and backend.store.count("incident", "short_description = ?", ("Keyboard missing keys",)) == 0
    )
    assert backend.serialize() == get_snapshot(ITSM, "tiny", 0).data
    backend.reset()  # serialize committed: the snapshot is deserialized again
    assert backend.store.last_restore == "deserialize"
    backend.reset(world_seed=1)  # another world is never reached by a rollback
    assert backend.store.last_restore == "deserialize"
    assert backend.serialize() == get_snapshot(ITSM, "tiny", 1).data


def test_sqlmodel_sessions_cannot_end_the_episode(itsm: Backend) -> None:
    from sqlmodel import Session, select

    from enterprise_envs.mocks.itsm import MODELS

    incident = MODELS["incident"]
    number = itsm.store.column_values("incident", "number", "active = 'true'")[0]
    assert itsm.call("add_comment", {"number": number, "text": "Looking into it."}).ok
    with Session(itsm.engine) as session:
        row = session.exec(select(incident).where(incident.number == number)).one()
        sys_id = row.sys_id
        row.short_description = "Changed through SQLModel"
        session.add(row)
        session.commit()
        session.rollback()
    changed = {(table, changed_id) for table, changed_id, _ in itsm.store.changed_rows()}
    assert ("incident", sys_id) in changed and len(changed) >= 2  # the journal entry stands too
    assert (
        itsm.store.find_one("incident", "number", number)["short_description"] == "Changed through SQLModel"
    )
    itsm.reset()
    assert itsm.store.last_restore == "rollback"
    assert (
        itsm.store.find_one("incident", "number", number)["short_description"] != "Changed through SQLModel"
    )


def test_sqlmodel_session_sees_the_same_database(itsm: Backend) -> None:
    from sqlmodel import Session, select

    from enterprise_envs.mocks.itsm import MODELS

    incident = MODELS["incident"]
    with Session(itsm.engine) as session:
        numbers = session.exec(select(incident.number).where(incident.state == "2")).all()
    assert sorted(numbers) == sorted(itsm.store.column_values("incident", "number", "state = '2'"))


@pytest.mark.parametrize(
    ("limit", "offset"), [(5, 0), (5, 5), (1000, 0), (1000, 3), (5, 10_000), (1000, 10_000)]
)
def test_total_count_is_right_whatever_the_page(itsm: Backend, limit: int, offset: int) -> None:
    result = itsm.call(
        "table_list", {"table": "incident", "sysparm_limit": limit, "sysparm_offset": offset}, surface="rest"
    )
    total = itsm.store.count("incident")
    assert int(result.headers["X-Total-Count"]) == total
    assert len(result.body["result"]) == max(0, min(limit, total - offset))


def test_a_failed_write_gives_back_the_keys_it_drew() -> None:
    """A write refused after drawing a key changes nothing, the key stream included: the episode
    goes on as if the call had never been made (the next record gets the same key either way)."""
    from enterprise_envs.mocks.chat import CHAT

    def first_new_key(with_failed_write: bool) -> str:
        backend = Backend(CHAT, size="tiny")
        backend.reset(episode_seed=11)
        if with_failed_write:
            # The engine draws the channel's key before the name rule refuses it (name_taken).
            refused = backend.call("create_channel", {"name": "general"})
            assert refused.body["error"] == "name_taken"
        made = backend.call("create_channel", {"name": "printer-jam"})
        assert made.ok, made.body
        return made.body["id"]

    assert first_new_key(with_failed_write=True) == first_new_key(with_failed_write=False)
