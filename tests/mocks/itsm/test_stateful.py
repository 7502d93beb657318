"""Stateful property test: random sequences of typed-surface calls against a plain-Python model
of incidents. After every step the mock's rows must agree with the model, and refused calls
must leave the database unchanged."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import ITSM
from tests.strategies import examples

MATRIX = {(i, u): str(min(5, int(i) + int(u) - 1)) for i in "123" for u in "123"}
CLOSE_CODES = ["Solution provided", "Workaround provided", "Not a code", ""]
HOLD_REASONS = ["Awaiting Caller", "Awaiting Vendor", "Awaiting Problem", "Awaiting Change"]
LEVELS = st.sampled_from(["1", "2", "3"])

_BACKEND = Backend(ITSM, size="tiny", world_seed=1)


class IncidentMachine(RuleBasedStateMachine):
    """The model: number -> the fields the rules govern."""

    incidents = Bundle("incidents")

    def __init__(self) -> None:
        super().__init__()
        _BACKEND.reset(episode_seed=0)
        self.backend = _BACKEND
        self.model: dict[str, dict[str, str]] = {}
        callers = self.backend.store.select("sys_user", "roles = '' AND active = 'true'", limit=5)
        self.callers = [row["user_name"] for row in callers]

    def _call(self, tool: str, arguments: dict, expect_ok: bool | None):
        before = self.backend.serialize()
        result = self.backend.call(tool, arguments)
        assert not self.backend.internal_errors
        if expect_ok is not None:
            assert result.ok == expect_ok, (tool, arguments, result.body)
        if not result.ok:
            assert self.backend.serialize() == before
        return result

    @initialize(target=incidents, impact=LEVELS, urgency=LEVELS)
    def first(self, impact: str, urgency: str) -> str:
        return self._create(impact, urgency, 0)

    @rule(target=incidents, impact=LEVELS, urgency=LEVELS, caller=st.integers(0, 4))
    def create(self, impact: str, urgency: str, caller: int) -> str:
        return self._create(impact, urgency, caller)

    def _create(self, impact: str, urgency: str, caller: int) -> str:
        result = self._call(
            "create_incident",
            {
                "caller": self.callers[caller % len(self.callers)],
                "short_description": "Printer jam",
                "impact": impact,
                "urgency": urgency,
            },
            True,
        )
        number = result.body["number"]
        self.model[number] = {
            "state": "1",
            "impact": impact,
            "urgency": urgency,
            "close_code": "",
            "reopen_count": "0",
            "hold_reason": "",
        }
        return number

    @rule(number=incidents, impact=LEVELS, urgency=LEVELS)
    def reprioritize(self, number: str, impact: str, urgency: str) -> None:
        model = self.model[number]
        ok = model["state"] not in ("7", "8")
        self._call("update_incident", {"number": number, "impact": impact, "urgency": urgency}, ok)
        if ok:
            model.update(impact=impact, urgency=urgency)

    @rule(number=incidents, code=st.sampled_from(CLOSE_CODES), notes=st.sampled_from(["Fixed.", " "]))
    def resolve(self, number: str, code: str, notes: str) -> None:
        model = self.model[number]
        ok = model["state"] in ("1", "2", "3") and code in CLOSE_CODES[:2] and notes.strip() != ""
        if model["state"] == "6" and code in CLOSE_CODES[:2] and notes.strip():
            ok = True  # resolving a resolved incident again is a no-op update
        self._call("resolve_incident", {"number": number, "close_code": code, "close_notes": notes}, ok)
        if ok:
            model.update(state="6", close_code=code, hold_reason="")

    @rule(number=incidents)
    def reopen(self, number: str) -> None:
        model = self.model[number]
        ok = model["state"] == "6"
        self._call("reopen_incident", {"number": number, "reason": "Still failing."}, ok)
        if ok:
            model["reopen_count"] = str(int(model["reopen_count"]) + 1)
            model.update(state="2", hold_reason="", close_code="")

    @rule(number=incidents, reason=st.sampled_from(HOLD_REASONS))
    def hold(self, number: str, reason: str) -> None:
        model = self.model[number]
        ok = model["state"] in ("1", "2", "3")
        self._call("hold_incident", {"number": number, "hold_reason": reason}, ok)
        if ok:
            model.update(
                state="3",
                hold_reason={
                    "Awaiting Caller": "1",
                    "Awaiting Problem": "3",
                    "Awaiting Vendor": "4",
                    "Awaiting Change": "5",
                }[reason],
            )

    @rule(number=incidents, text=st.text(min_size=1, max_size=40).filter(str.strip))
    def comment(self, number: str, text: str) -> None:
        # A NUL is no text: the input boundary refuses it before any rule runs.
        ok = self.model[number]["state"] not in ("7", "8") and "\x00" not in text
        self._call("add_comment", {"number": number, "text": text, "kind": "work_note"}, ok)

    @rule(number=incidents)
    def itil_cannot_close(self, number: str) -> None:
        row = self.backend.store.find_one("incident", "number", number)
        result = self.backend.call(
            "table_update",
            {"table": "incident", "sys_id": row["sys_id"], "fields": {"state": "7"}},
            surface="rest",
        )
        assert result.status == 403

    @invariant()
    def rows_agree_with_the_model(self) -> None:
        for number, model in self.model.items():
            row = self.backend.store.find_one("incident", "number", number)
            assert row is not None
            for field, value in model.items():
                stored = row[field] or "0" if field == "reopen_count" else row[field]
                assert stored == value, (number, field, stored, value)
            assert row["priority"] == MATRIX[(row["impact"], row["urgency"])]
            assert row["incident_state"] == row["state"]
            assert row["active"] == ("false" if row["state"] in ("7", "8") else "true")
            assert bool(row["resolved_at"]) == (row["state"] in ("6", "7"))


IncidentMachine.TestCase.settings = settings(
    max_examples=examples(30),
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_incident_state_machine = IncidentMachine.TestCase
