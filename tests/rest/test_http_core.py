"""The generic HTTP description (``mocks/_core/http.py``) on a made-up API: what later vendors need too.

Path templates with parameters, a whole body under one argument, query and form text read as the
tool's schema types it, bearer, basic (the token as the password) and custom schemes.
"""

from __future__ import annotations

import base64

from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks._core.http import (
    BASIC,
    Auth,
    Body,
    HttpApi,
    Problem,
    Rejection,
    Reply,
    Route,
    coerce,
    parse_body,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "table": {"type": "string"},
        "sys_id": {"type": "string"},
        "limit": {"type": "integer"},
        "ratio": {"type": "number"},
        "strict": {"type": "boolean"},
        "loose": {"type": ["boolean", "string"]},
        "fields": {"type": "object"},
    },
}


def _api(auth: Auth | None = None) -> HttpApi:
    return HttpApi(
        name="Things API",
        routes=(
            Route("GET", "/api/v1/{table}", "list_things"),
            Route("GET", "/api/v1/{table}/{id}", "get_thing", path_args={"id": "sys_id"}),
            Route("PATCH", "/api/v1/{table}/{id}", "update_thing", body="fields", path_args={"id": "sys_id"}),
            Route(
                "POST",
                "/api/v1/{table}/{id}/lifecycle/activate",
                "activate_thing",
                path_args={"id": "sys_id"},
            ),
        ),
        auth=auth or Auth(),
        reject=lambda rejection: Reply(
            401 if "credentials" in rejection.problem else 400, {"why": rejection.problem}
        ),
    )


def test_routes_match_templates_and_say_why_they_do_not() -> None:
    api = _api()
    route, params = api.match("PATCH", "/api/v1/thing/abc")
    assert (route.tool, params) == ("update_thing", {"table": "thing", "id": "abc"})
    route, params = api.match("POST", "/api/v1/thing/abc/lifecycle/activate")
    assert route.tool == "activate_thing"
    wrong = api.match("DELETE", "/api/v1/thing/abc")
    assert isinstance(wrong, Rejection)
    assert (wrong.problem, wrong.allowed) == (Problem.WRONG_METHOD, ("GET", "PATCH"))
    missing = api.match("GET", "/api/v1/thing/abc/else")
    assert isinstance(missing, Rejection) and missing.problem is Problem.NO_ROUTE
    # Template text is literal: a dot or a bracket in it matches only itself.
    dotted = Route("POST", "/api/chat.post", "post")
    assert dotted.match("/api/chat.post") == {} and dotted.match("/api/chatXpost") is None


def test_arguments_come_from_query_body_and_path_the_path_winning() -> None:
    api = _api()
    route, params = api.match("PATCH", "/api/v1/thing/abc")
    arguments = api.arguments(
        route, params, [("limit", "20"), ("sys_id", "forged")], Body({"state": "2"}), SCHEMA
    )
    assert arguments == {"limit": 20, "fields": {"state": "2"}, "table": "thing", "sys_id": "abc"}
    route, params = api.match("GET", "/api/v1/thing")
    arguments = api.arguments(
        route,
        params,
        [("limit", "x"), ("strict", "TRUE"), ("loose", "true"), ("tag", "a"), ("tag", "b")],
        Body(None),
        SCHEMA,
    )
    assert arguments == {"limit": "x", "strict": True, "loose": "true", "tag": ["a", "b"], "table": "thing"}


def test_a_form_body_is_spread_and_typed_and_a_json_body_passed_as_sent() -> None:
    api = _api(Auth(form_field="token"))
    route, params = api.match("GET", "/api/v1/thing")
    form = api.arguments(
        route, params, [], Body({"limit": "5", "ratio": "0.5", "token": "s"}, form=True), SCHEMA
    )
    assert form == {"limit": 5, "ratio": 0.5, "table": "thing"}
    sent = api.arguments(route, params, [], Body({"limit": "5", "token": "s"}), SCHEMA)
    assert sent == {"limit": "5", "table": "thing"}


def test_coerce_reads_text_only_where_the_schema_takes_no_text() -> None:
    assert coerce("7", {"type": "integer"}) == 7
    assert coerce("7", {"type": ["integer", "string"]}) == "7"
    assert coerce("1e400", {"type": "number"}) == "1e400"
    assert coerce("9" * 40, {"type": "integer"}) == "9" * 40
    assert coerce("false", {"type": "boolean"}) is False
    assert coerce(["1"], {"type": "integer"}) == ["1"]
    assert coerce("1", None) == "1"


def test_credentials_by_scheme() -> None:
    basic = base64.b64encode(b"admin:s3cret").decode()
    auth = Auth(schemes=("Bearer", BASIC, "SSWS"))
    assert auth.credential("Bearer s3cret") == "s3cret"
    assert auth.credential("bearer  s3cret ") == "s3cret"
    assert auth.credential(f"Basic {basic}") == "s3cret"
    assert auth.credential("Basic not-base64!") == ""  # presented, but wrong: bad, not missing
    assert auth.credential("SSWS s3cret") == "s3cret"
    assert auth.credential("Token s3cret") is None
    assert auth.credential(None) is None
    form = Auth(form_field="token")
    assert form.credential(None, {"token": "s3cret"}) == "s3cret"
    assert form.credential("Bearer header", {"token": "form"}) == "header"
    assert form.credential(None, {"token": ["a", "b"]}) is None


def test_bodies_are_json_objects_or_forms() -> None:
    assert parse_body("POST", "/x", None, b"  ") == Body(None)
    assert parse_body("POST", "/x", "application/json; charset=utf-8", b'{"a": [1]}') == Body({"a": [1]})
    assert parse_body("POST", "/x", "application/x-www-form-urlencoded", b"a=1&b=&a=2") == Body(
        {"a": ["1", "2"], "b": ""}, form=True
    )
    problems = {
        ("application/json", b"{"): Problem.BAD_JSON,
        ("application/json", b'"text"'): Problem.NOT_AN_OBJECT,
        ("application/json", b'{"a": 1e999}'): Problem.BAD_JSON,  # the input boundary's bounded parse
        ("application/x-www-form-urlencoded", b"a=%C3%28"): Problem.BAD_FORM,
        ("application/x-www-form-urlencoded", b"&".join([b"a=1"] * 1001)): Problem.BAD_FORM,
        ("multipart/form-data; boundary=x", b"--x--"): Problem.BAD_CONTENT_TYPE,
        (None, b"a=1"): Problem.BAD_CONTENT_TYPE,
    }
    for (content_type, raw), problem in problems.items():
        found = parse_body("POST", "/x", content_type, raw)
        assert isinstance(found, Rejection) and found.problem is problem, (content_type, raw)


def test_a_result_goes_out_with_the_apis_status() -> None:
    result = CallResult("get_thing", 404, {"error": "nope"}, {"X-Trace": "1"}, "not_found")
    assert _api().reply(result) == Reply(404, {"error": "nope"}, {"X-Trace": "1"})
    always_ok = HttpApi("Always 200", (), Auth(), _api().reject, status=lambda found: 200)
    assert always_ok.reply(result).status == 200
