"""``enterprise-envs demo``: a short service-desk interaction driven through the ITSM mock.

It plays what an agent would do for a caller whose VPN keeps dropping, printing each tool call
and its result, then the rows the episode changed (what a verifier will judge).
"""

from __future__ import annotations

import json
import time
from typing import IO, Any

from enterprise_envs.mocks._core.backend import Backend, CallResult


def _show(
    out: IO[str], step: int, surface: str, tool: str, arguments: dict[str, Any], result: CallResult
) -> None:
    out.write(f"\n[{step}] {surface}.{tool}({json.dumps(arguments, ensure_ascii=False)})\n")
    text = json.dumps(result.to_dict() if surface == "rest" else result.body, indent=2, ensure_ascii=False)
    lines = text.splitlines()
    if len(lines) > 28:
        lines = [*lines[:28], f"  ... ({len(lines) - 28} more lines)"]
    out.write(f"    -> {result.status}\n")
    out.write("\n".join("    " + line for line in lines) + "\n")


def run_demo(size: str = "default", seed: int = 0, out: IO[str] | None = None) -> int:
    """Run the demo interaction and print it.

    Args:
        size: World size.
        seed: World seed.
        out: Where to print (stdout by default).

    Returns:
        Process exit status: 0 when every expected step behaved as expected.
    """
    import sys

    from enterprise_envs.mocks.itsm import ITSM

    out = out or sys.stdout
    started = time.perf_counter()
    backend = Backend(ITSM, size=size, world_seed=seed, surface="typed")
    built = time.perf_counter() - started
    backend.mark_start()
    caller = backend.store.select("sys_user", "roles = '' AND active = 'true' AND vip != 'true'", limit=1)[0]
    out.write(
        f"ITSM world (size={size}, seed={seed}) ready in {built * 1000:.0f} ms. "
        f"The agent is {backend.identity.user_name} (roles: {', '.join(sorted(backend.identity.roles))}).\n"
        f'Caller on the phone: {caller["name"]} <{caller["email"]}>: "My VPN keeps disconnecting."\n'
    )
    steps: list[tuple[str, str, dict[str, Any], int]] = [
        ("typed", "search_users", {"query": caller["email"]}, 200),
        ("typed", "search_incidents", {"caller": caller["user_name"], "active": True}, 200),
        (
            "typed",
            "create_incident",
            {
                "caller": caller["user_name"],
                "short_description": "VPN disconnects every few minutes",
                "description": "The VPN client drops the connection every few minutes since Monday.",
                "category": "network",
                "subcategory": "vpn",
                "impact": "3",
                "urgency": "2",
                "assignment_group": "Network",
            },
            200,
        ),
        ("typed", "search_knowledge", {"query": "vpn disconnects", "limit": 3}, 200),
    ]
    ok = True
    step = 0
    results = []
    for surface, tool, arguments, expected in steps:
        step += 1
        result = backend.call(tool, arguments, surface=surface)
        _show(out, step, surface, tool, arguments, result)
        ok &= result.status == expected
        results.append(result)
    incident = backend.store.select(
        "incident", "short_description = 'VPN disconnects every few minutes'", limit=1
    )
    if not incident:
        out.write("\nThe incident was not created.\n")
        return 1
    number, sys_id = incident[0]["number"], incident[0]["sys_id"]
    articles = results[-1].body.get("articles", [])
    article = articles[0]["number"] if articles else "the VPN article"
    follow_up: list[tuple[str, str, dict[str, Any], int]] = [
        (
            "typed",
            "add_comment",
            {"number": number, "kind": "work_note", "text": f"Walked caller through {article}."},
            200,
        ),
        # A resolve through the Table API without resolution fields: the data policy refuses it.
        ("rest", "table_update", {"table": "incident", "sys_id": sys_id, "fields": {"state": "6"}}, 403),
        (
            "typed",
            "resolve_incident",
            {
                "number": number,
                "close_code": "Solution provided",
                "close_notes": f"Reinstalled the VPN profile per {article}.",
            },
            200,
        ),
        (
            "rest",
            "table_get",
            {
                "table": "incident",
                "sys_id": sys_id,
                "sysparm_fields": "number,state,priority,close_code,resolved_by",
                "sysparm_display_value": "true",
            },
            200,
        ),
    ]
    for surface, tool, arguments, expected in follow_up:
        step += 1
        result = backend.call(tool, arguments, surface=surface)
        _show(out, step, surface, tool, arguments, result)
        ok &= result.status == expected
    out.write("\nRows this interaction changed (what the verifier will judge):\n")
    for table, row_id, before in backend.store.changed_rows():
        after = backend.store.get(table, row_id)
        label = after.get("number") or after.get("element") or row_id if after else row_id
        out.write(f"  {'insert' if before is None else 'update'} {table} {label}\n")
    out.write(f"\nDemo {'completed' if ok else 'FAILED'}: {step} calls.\n")
    return 0 if ok else 1
