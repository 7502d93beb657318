"""The probe policies, on real scenario instances: what each builds, and that it is deterministic."""

from __future__ import annotations

import pytest

from enterprise_envs.audit import EnvEpisodes
from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.verifiers.audit import PROBES, Action, RecordApi, ToolInfo, judge, variants
from enterprise_envs.verifiers.audit.probes import ADVISORY, leaves, set_leaf, swap
from enterprise_envs.verifiers.audit.trace import clock_fields


@pytest.fixture(scope="module")
def report_incident():
    episodes = EnvEpisodes("itsm.report_incident")
    oracle = episodes.record(0, "typed", "typed")
    yield episodes, oracle
    episodes.close()


def _surfaces(names=("typed", "rest")):
    return {
        name: {t.name: ToolInfo(t.name, t.kind.value, t.input_schema) for t in ITSM.surface(name)}
        for name in names
    }


def test_leaves_and_set_leaf_walk_nested_arguments() -> None:
    arguments = {
        "table": "incident",
        "fields": {"urgency": "1", "tags": ["a", "b"]},
        "limit": 5,
        "flag": True,
    }
    found = dict(leaves(arguments))
    assert found == {("table",): "incident", ("fields", "urgency"): "1", ("fields", "tags", 0): "a",
                     ("fields", "tags", 1): "b", ("limit",): 5}  # fmt: skip
    changed = set_leaf(arguments, ("fields", "urgency"), "3")
    assert changed["fields"]["urgency"] == "3" and arguments["fields"]["urgency"] == "1"


def test_swap_replaces_identifiers_whole_and_at_token_boundaries() -> None:
    mapping = {"INC0010001": "INC0010099", "abel.tuter": "beth.anglin"}
    call = Action.call("add_comment", {"number": "inc0010001", "text": "See INC0010001. Ask abel.tuter."})
    swapped = swap(call, mapping)
    assert swapped.arguments == {"number": "INC0010099", "text": "See INC0010099. Ask beth.anglin."}
    untouched = swap(Action.say("INC00100012 and abel.tuter2 stay"), mapping)
    assert untouched.text == "INC00100012 and abel.tuter2 stay"


def test_the_record_api_is_the_one_the_system_declares() -> None:
    declared = ITSM.conventions.audit.record_api
    api = RecordApi.find(declared, _surfaces())
    assert api is not None and api.surface == "rest"
    assert (api.declared.create, api.declared.update, api.declared.delete) == (
        "table_create",
        "table_update",
        "table_delete",
    )
    assert RecordApi.find(declared, _surfaces(("typed",))) is None  # not on the surfaces: none
    assert RecordApi.find(None, _surfaces()) is None  # none declared: none, whatever the tools
    action = api.update("incident", "x" * 32, {"urgency": "1"}, note="n")
    assert action.surface == "rest" and action.arguments == {
        "table": "incident",
        "sys_id": "x" * 32,
        "fields": {"urgency": "1"},
    }


def test_every_probe_family_builds_variants_from_the_oracle(report_incident) -> None:
    episodes, oracle = report_incident
    assert oracle.passed
    ctx = episodes.context(0, "typed")
    built = variants(oracle, ctx)
    families = {variant.probe for variant in built}
    # report_incident inserts (no row to damage in place), every enum it sets is checked, and it
    # forbids no attempt (refused_early has no target).
    assert families >= set(PROBES) - {"same_row", "unchecked", "refused_early"}
    writes = [i for i, step in enumerate(oracle.steps) if step.write]
    for variant in built:
        if variant.probe == "minus_write":
            assert len(variant.actions) == len(oracle.steps) - 1
        if variant.probe in ("no_op", "answer_only"):
            assert all(action.tool not in ("create_incident",) for action in variant.actions)
        if variant.probe == "answer_only":
            assert all(action.kind != "tool" for action in variant.actions)
        if variant.probe == "privilege":
            assert variant.attempts
            attempt = (
                variant.actions[0] if not variant.name.startswith("privilege[after") else variant.actions[-2]
            )
            assert attempt.surface == "rest" and attempt.note.startswith("privilege")
    assert writes and not any(v.attempts for v in built if v.probe != "privilege")
    # Deterministic: the same oracle and context build the same variants.
    again = variants(episodes.record(0, "typed", "typed"), episodes.context(0, "typed"))
    assert [(v.name, v.actions) for v in again] == [(v.name, v.actions) for v in built]


def test_perturbations_target_the_checked_fields(report_incident) -> None:
    episodes, oracle = report_incident
    names = [v.name for v in variants(oracle, episodes.context(0, "typed"), ["perturb"])]
    assert any("incident.urgency=neighbour" in name for name in names)
    assert any("incident.category=case" in name for name in names)
    assert any("incident.assignment_group=empty" in name for name in names)
    assert not any(
        "description=" in name and "short_description" not in name for name in names
    )  # unchecked text


def test_a_read_only_scenario_has_no_write_probes_and_answer_only_is_equivalent() -> None:
    episodes = EnvEpisodes("itsm.status_check")
    oracle = episodes.record(1, "typed", "typed")
    ctx = episodes.context(1, "typed")
    built = variants(oracle, ctx)
    assert not [v for v in built if v.probe in ("no_op", "minus_write")]
    answer = next(v for v in built if v.probe == "answer_only")
    run = episodes.replay(1, "typed", answer.actions)
    assert run.passed and judge(answer, run, oracle, clock_fields(ctx.catalog)) == "equivalent"
    episodes.close()


def test_advisory_probes_are_probes() -> None:
    assert set(ADVISORY) <= set(PROBES)


def test_created_unasked_edits_only_what_no_entry_names(report_incident) -> None:
    episodes, oracle = report_incident
    built = variants(oracle, episodes.context(0, "typed"), ["created_unasked"])
    assert built
    named = {"caller_id", "category", "impact", "urgency", "short_description", "assignment_group"}
    edited = {variant.actions[-2].arguments["fields"].popitem()[0] for variant in built}
    assert edited and not edited & named
    assert {"state", "active"} & edited or any("lifecycle" in v.name for v in built)


def test_refused_early_tries_each_forbidden_target_with_a_value_validation_refuses() -> None:
    from enterprise_envs.audit import EnvEpisodes

    episodes = EnvEpisodes("itsm.refuse_foreign_ticket")
    oracle = episodes.record(0, "typed", "typed")
    built = variants(oracle, episodes.context(0, "typed"), ["refused_early"])
    assert built and all(variant.forbidden for variant in built)
    edit = built[0].actions[-2]
    assert edit.surface == "rest" and "not-a-" in next(iter(edit.arguments["fields"].values()))
    episodes.close()


def test_a_declared_writer_aims_record_api_probes_through_the_systems_own_tools() -> None:
    import dataclasses

    from enterprise_envs.mocks.identity import IDENTITY
    from enterprise_envs.verifiers.audit.context import WriterApi

    episodes = EnvEpisodes("identity.suspend_report")
    try:
        ctx = episodes.context(0, "typed")
        api = ctx.record_api
        assert isinstance(api, WriterApi)
        rest = {t.name for t in IDENTITY.surface("rest")}
        user = ctx.select("user", "status = 'SUSPENDED'", [], 1)[0]
        member = ctx.select("group_member", "1", [], 1)[0]
        calls = [
            api.update("user", user["id"], {"status": "ACTIVE"}),
            api.update("user", user["id"], {"title": "Chief"}),
            api.create("group_member", {"groupId": member["groupId"], "userId": user["id"]}),
            api.delete("group_member", member["id"]),
        ]
        assert all(call is not None and call.surface == "rest" and call.tool in rest for call in calls)
        assert [call.tool for call in calls if call] == [
            "unsuspendUser",
            "updateUser",
            "assignUserToGroup",
            "unassignUserFromGroup",
        ]
        assert calls[3] and calls[3].arguments == {"groupId": member["groupId"], "userId": member["userId"]}
        assert calls[1] and api.table_of(calls[1], "typed") == "user"
        assert api.table_of(Action.call("suspend_user", {"user": "x"}), "typed") is None
        # A write no operation makes is None, and the probe reports that part skipped.
        assert api.update("group", "00gAAAAAAAAAAAAAA8k7", {"description": "x"}) is None
        ctx.no_operation("canary", "update", "group", ["description"])
        assert ctx.skipped["canary"] == "no operation on this system makes: update group (description)"
        # Without a writer (nor a record API) the probes stay skipped.
        bare = dataclasses.replace(
            ctx,
            conventions=dataclasses.replace(
                ctx.conventions, audit=dataclasses.replace(ctx.conventions.audit, writer=None)
            ),
            skipped={},
        )
        assert bare.record_api_for("same_row") is None
        assert bare.skipped == {"same_row": "no generic record API on this system"}
    finally:
        episodes.close()
