"""StateDiff from the change log of a real ITSM back-end: ops, fields, derived-only and reverted
rows, renderings and order."""

from __future__ import annotations

import json

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.verifiers import compute_diff
from tests.mocks.itsm.helpers import as_user
from tests.verifiers.helpers import JOURNAL, delete, incidents, insert_journal, update

DERIVED = ITSM.catalog["incident"].derived_fields


def keys(changes) -> list[tuple[str, str]]:
    return [change.key for change in changes]


def test_empty_after_reset_and_mark_start(itsm: Backend) -> None:
    diff = compute_diff(itsm.store)
    assert diff.empty
    assert (diff.changes, diff.derived_only, diff.reverted) == ((), (), ())
    assert diff.summary() == {}
    assert diff.to_dict() == {"summary": {}, "changes": [], "derived_only": [], "reverted": []}
    assert diff.to_text() == "no changes"


def test_mark_start_makes_the_current_state_the_baseline(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    assert itsm.call("add_comment", {"number": incident["number"], "text": "setup note"}).ok
    assert not compute_diff(itsm.store).empty
    itsm.mark_start()
    assert compute_diff(itsm.store).empty


def test_refused_call_leaves_no_diff(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]  # In Progress: cannot be reopened
    result = itsm.call("reopen_incident", {"number": incident["number"], "reason": "again"})
    assert not result.ok
    assert compute_diff(itsm.store).empty


def test_insert_through_a_tool(itsm: Backend) -> None:
    created = itsm.call("create_incident", {"caller": "sd.agent", "short_description": "VPN drops hourly"})
    assert created.ok, created.body
    diff = compute_diff(itsm.store)
    inserted = [change for change in diff.changes if change.table == "incident"]
    assert len(inserted) == 1
    change = inserted[0]
    assert change.op == "insert"
    assert change.before is None
    assert change.after is not None and change.after["number"] == created.body["number"]
    assert change.row_key == created.body["sys_id"]
    assert change.fields["short_description"] == ("", "VPN drops hourly")
    # every non-empty field of the new row is listed, as ("", value)
    assert set(change.fields) == {name for name, value in change.after.items() if value != ""}
    assert all(before == "" for before, _ in change.fields.values())
    assert set(change.significant) == set(change.fields) - DERIVED
    assert "sys_mod_count" not in change.significant
    assert change.label() == f"incident {created.body['number']}"
    assert change.value("short_description", "before") == ""
    assert diff.summary()["incident"] == {"insert": 1}


def test_update_through_a_tool_has_field_level_changes(itsm: Backend) -> None:
    incident = incidents(itsm, 1, "state = '2' AND urgency = '3' AND impact = '3'")[0]
    result = itsm.call("update_incident", {"number": incident["number"], "urgency": "1"})
    assert result.ok, result.body
    diff = compute_diff(itsm.store)
    assert keys(diff.changes) == [("incident", incident["sys_id"])]
    change = diff.changes[0]
    assert change.op == "update"
    assert change.before == incident
    assert change.after == itsm.store.get("incident", incident["sys_id"])
    assert change.fields["urgency"] == ("3", "1")
    assert change.fields["priority"] == (incident["priority"], change.after["priority"])  # derived by rule
    assert "sys_mod_count" in change.fields  # derived fields stay visible...
    assert "sys_mod_count" not in change.significant  # ...but do not count
    assert {"urgency", "priority"} <= set(change.significant)
    assert set(change.significant) == set(change.fields) - DERIVED
    # only fields that differ are listed
    assert all(before != after for before, after in change.fields.values())
    assert "short_description" not in change.fields


def test_delete_through_rest_lists_the_old_row(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    result = itsm.call(
        "table_delete",
        {"table": "incident", "sys_id": incident["sys_id"]},
        surface="rest",
        identity=as_user(itsm, "admin"),
    )
    assert result.ok, result.body
    diff = compute_diff(itsm.store)
    deleted = [change for change in diff.changes if change.key == ("incident", incident["sys_id"])]
    assert len(deleted) == 1
    change = deleted[0]
    assert (change.op, change.after, change.before) == ("delete", None, incident)
    assert change.fields["number"] == (incident["number"], "")
    assert set(change.fields) == {name for name, value in incident.items() if value != ""}
    assert change.value("number") == "" and change.value("number", "before") == incident["number"]
    assert change.label() == f"incident {incident['number']}"
    assert diff.summary()["incident"] == {"delete": 1}


def test_derived_only_update_is_visible_but_not_a_change(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    update(
        itsm,
        "incident",
        incident["sys_id"],
        sys_updated_on="2026-03-02 09:30:00",
        sys_mod_count=str(int(incident["sys_mod_count"]) + 1),
    )
    diff = compute_diff(itsm.store)
    assert diff.empty and diff.changes == ()
    assert keys(diff.derived_only) == [("incident", incident["sys_id"])]
    only = diff.derived_only[0]
    assert only.significant == ()
    assert set(only.fields) == {"sys_updated_on", "sys_mod_count"}
    assert diff.summary() == {}
    as_dict = diff.to_dict()
    assert as_dict["changes"] == []
    assert as_dict["derived_only"][0]["sys_id"] == incident["sys_id"]
    assert as_dict["derived_only"][0]["fields"]["sys_updated_on"] == [
        incident["sys_updated_on"],
        "2026-03-02 09:30:00",
    ]
    assert as_dict["derived_only"][0]["significant"] == []
    assert diff.to_text() == "no changes"


def test_a_comment_leaves_its_incident_derived_only(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    assert itsm.call("add_comment", {"number": incident["number"], "text": "Looking into it"}).ok
    diff = compute_diff(itsm.store)
    assert [(change.table, change.op) for change in diff.changes] == [(JOURNAL, "insert")]
    assert diff.changes[0].after["element_id"] == incident["sys_id"]
    assert diff.changes[0].after["value"] == "Looking into it"
    assert keys(diff.derived_only) == [("incident", incident["sys_id"])]
    assert set(diff.derived_only[0].fields) <= DERIVED


def test_significant_and_derived_fields_together(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    update(itsm, "incident", incident["sys_id"], category="database", sys_mod_count="99")
    change = compute_diff(itsm.store).changes[0]
    assert set(change.fields) == {"category", "sys_mod_count"}
    assert change.significant == ("category",)


def test_update_then_revert_is_reverted(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    update(itsm, "incident", incident["sys_id"], short_description="temporary")
    update(itsm, "incident", incident["sys_id"], short_description=incident["short_description"])
    diff = compute_diff(itsm.store)
    assert diff.empty and diff.derived_only == ()
    assert diff.reverted == (("incident", incident["sys_id"]),)
    assert diff.to_dict()["reverted"] == [["incident", incident["sys_id"]]]


def test_revert_through_tools_still_bumps_bookkeeping(itsm: Backend) -> None:
    """Through the service layer a put-back leaves sys_mod_count changed: derived-only, not a change."""
    incident = incidents(itsm, 1, "state = '2' AND urgency = '3'")[0]
    assert itsm.call("update_incident", {"number": incident["number"], "urgency": "1"}).ok
    assert itsm.call("update_incident", {"number": incident["number"], "urgency": "3"}).ok
    diff = compute_diff(itsm.store)
    assert diff.empty
    assert keys(diff.derived_only) == [("incident", incident["sys_id"])]
    assert diff.derived_only[0].fields["sys_mod_count"] == (
        incident["sys_mod_count"],
        str(int(incident["sys_mod_count"]) + 2),
    )


def test_delete_then_reinsert_identical_is_reverted(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    delete(itsm, "incident", incident["sys_id"])
    with itsm.store.transaction():
        itsm.store.insert("incident", incident)
    diff = compute_diff(itsm.store)
    assert diff.empty and diff.derived_only == ()
    assert diff.reverted == (("incident", incident["sys_id"]),)


def test_delete_then_reinsert_different_is_an_update(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    delete(itsm, "incident", incident["sys_id"])
    with itsm.store.transaction():
        itsm.store.insert("incident", {**incident, "short_description": "rewritten"})
    diff = compute_diff(itsm.store)
    assert keys(diff.changes) == [("incident", incident["sys_id"])]
    change = diff.changes[0]
    assert change.op == "update"
    assert change.fields == {"short_description": (incident["short_description"], "rewritten")}
    assert change.significant == ("short_description",)
    assert diff.reverted == ()


def test_insert_then_delete_disappears(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    sys_id = "f" * 32
    insert_journal(itsm, sys_id, incident["sys_id"], "draft")
    delete(itsm, JOURNAL, sys_id)
    assert (JOURNAL, sys_id) in [(table, key) for table, key, _ in itsm.store.changed_rows()]
    diff = compute_diff(itsm.store)
    assert diff.empty
    assert (JOURNAL, sys_id) not in [*keys(diff.changes), *keys(diff.derived_only), *diff.reverted]


def test_insert_then_update_is_an_insert_of_the_final_row(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    sys_id = "e" * 32
    insert_journal(itsm, sys_id, incident["sys_id"], "draft")
    update(itsm, JOURNAL, sys_id, value="final")
    (change,) = compute_diff(itsm.store).changes
    assert (change.op, change.before) == ("insert", None)
    assert change.fields["value"] == ("", "final")


def test_to_dict_is_json_serializable(itsm: Backend) -> None:
    first, second = incidents(itsm, 2)
    update(itsm, "incident", first["sys_id"], category="database", sys_mod_count="42")
    update(itsm, "incident", second["sys_id"], sys_mod_count="43")
    insert_journal(itsm, "d" * 32, first["sys_id"], "note")
    diff = compute_diff(itsm.store)
    as_dict = diff.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert as_dict["summary"] == {"incident": {"update": 1}, JOURNAL: {"insert": 1}}
    assert [change["sys_id"] for change in as_dict["changes"]] == [first["sys_id"], "d" * 32]
    assert as_dict["changes"][0] == {
        "table": "incident",
        "sys_id": first["sys_id"],
        "op": "update",
        "label": f"incident {first['number']}",
        "fields": {
            "category": [first["category"], "database"],
            "sys_mod_count": [first["sys_mod_count"], "42"],
        },
        "significant": ["category"],
    }
    assert [change["sys_id"] for change in as_dict["derived_only"]] == [second["sys_id"]]


def test_to_text_names_each_row(itsm: Backend) -> None:
    first, second, third = incidents(itsm, 3)
    update(itsm, "incident", first["sys_id"], category="database", sys_mod_count="42")
    delete(itsm, "incident", second["sys_id"])
    created = itsm.call("create_incident", {"caller": "sd.agent", "short_description": "Printer jam"})
    assert created.ok
    diff = compute_diff(itsm.store)
    lines = diff.to_text().splitlines()
    assert len(lines) == len(diff.changes)
    assert lines[0] == f"update incident {first['number']} (category: {first['category']!r} -> 'database')"
    assert lines[1] == f"delete incident {second['number']}"
    assert f"insert incident {created.body['number']}" in lines
    assert "sys_mod_count" not in diff.to_text()  # derived fields are not shown as changes
    assert third["number"] not in diff.to_text()


def test_label_falls_back_to_sys_id(itsm: Backend) -> None:
    member = itsm.store.select("sys_user_grmember", limit=1)[0]
    delete(itsm, "sys_user_grmember", member["sys_id"])
    (change,) = compute_diff(itsm.store).changes
    assert change.label() == f"sys_user_grmember {member['sys_id']}"
    assert compute_diff(itsm.store).to_text() == f"delete sys_user_grmember {member['sys_id']}"


def test_journal_rows_have_distinct_labels(itsm: Backend) -> None:
    first, second = incidents(itsm, 2)
    assert itsm.call("add_comment", {"number": first["number"], "text": "one"}).ok
    assert itsm.call("add_comment", {"number": second["number"], "text": "two"}).ok
    diff = compute_diff(itsm.store)
    labels = [change.label() for change in diff.changes]
    assert len(labels) == 2
    assert len(set(labels)) == 2, f"two different journal rows, same label: {labels}"
    assert len(set(diff.to_text().splitlines())) == 2


def test_order_is_first_write_order(itsm: Backend) -> None:
    a, b, c = incidents(itsm, 3)
    # written c, a, b; then c and a written again: the order stays c, a, b
    for row in (c, a, b, c, a):
        update(itsm, "incident", row["sys_id"], short_description=f"edit {row['number']} {id(row)}")
    insert_journal(itsm, "0" * 32, b["sys_id"], "note")
    assert keys(compute_diff(itsm.store).changes) == [
        ("incident", c["sys_id"]),
        ("incident", a["sys_id"]),
        ("incident", b["sys_id"]),
        (JOURNAL, "0" * 32),
    ]


def test_order_within_one_transaction_is_write_order(itsm: Backend) -> None:
    a, b, c = incidents(itsm, 3)
    with itsm.store.transaction():
        for row in (b, c, a):
            itsm.store.update("incident", row["sys_id"], {"category": "database"})
    assert keys(compute_diff(itsm.store).changes) == [
        ("incident", b["sys_id"]),
        ("incident", c["sys_id"]),
        ("incident", a["sys_id"]),
    ]
