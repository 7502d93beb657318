"""Service catalog: items (``sc_cat_item``), requests (``sc_request``), requested items."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from enterprise_envs.mocks.itsm import world_data as bank
from enterprise_envs.mocks.itsm.services.catalog import CLOSED_STAGES, money, parse_price
from enterprise_envs.mocks.itsm.world.common import (
    ADMIN_USER_NAME,
    DAY,
    HOUR,
    MINUTE,
    TASK_DEFAULTS,
    Person,
    Picker,
    Row,
    Task,
    World,
    between,
    fmt,
    fmt_date,
    number_in_order,
    stamps,
)
from enterprise_envs.mocks.itsm.world.people import active_callers, group_id, member_of, org_created

#: A request's phase and the states its items take in that phase.
#: Catalog items need no approval, so nothing waits in Pending: a request is just ordered (its
#: items Open), in progress, or closed.
_REQUEST_PHASES = {"open": 25, "in_progress": 25, "closed": 50}
#: An item's state and stage as the catalog service creates it (closed stages: CLOSED_STAGES).
OPEN_ITEM, OPEN_ITEM_STAGE = "1", "request_approved"
#: A request's request_state and stage from its items' state; "requested" as newly ordered.
_REQUEST_STATE_NAMES = {
    "1": "requested", "2": "in_process", "3": "closed_complete", "4": "closed_incomplete",
    "7": "closed_cancelled",
}  # fmt: skip


def build_catalog_items(world: World) -> None:
    """sc_cat_item rows from the bank's catalog."""
    created = org_created(world)
    rows = [
        {
            "sys_id": world.sys_id(),
            "name": spec["name"],
            "short_description": spec["short_description"],
            "category": spec["category"],
            "price": spec["price"],
            "active": "true",
            "group": group_id(world, spec["group"]),
            **stamps(created, ADMIN_USER_NAME),
        }
        for spec in bank.CATALOG_ITEMS
    ]
    world.add("sc_cat_item", rows)


def build_requests(world: World) -> None:
    """sc_request rows and their sc_req_item rows, as the catalog's order service makes them."""
    rng = world.rng
    phase = Picker(rng, _REQUEST_PHASES)
    pool = active_callers(world)
    items = list(bank.CATALOG_ITEMS)
    item_rows = world.rows["sc_cat_item"]
    requests = [_plan_request(world, phase(), rng.choice(pool)) for _ in range(world.counts["requests"])]
    number_in_order(world, "sc_request", requests)
    ritms: list[Task] = []
    for request in requests:
        chosen = rng.sample(range(len(items)), min(len(items), rng.choices((1, 2, 3), (75, 20, 5))[0]))
        lines = [_plan_item(world, request, items[i], item_rows[i]) for i in chosen]
        _roll_up(request, lines)
        ritms += lines
    # Items are numbered in request order, as the catalog checkout creates them.
    for task in ritms:
        task.row["number"] = world.build.number("sc_req_item")
    world.add("sc_request", [task.row for task in requests])
    world.add("sc_req_item", [task.row for task in ritms])


def _plan_request(world: World, phase: str, requester: Person) -> Task:
    """One request header in a phase (just ordered, in progress or closed)."""
    rng, now = world.rng, world.now
    if phase == "closed":
        closed = now - rng.randint(HOUR, world.history() - 20 * DAY)
        opened = closed - rng.randint(DAY, 10 * DAY)
    else:
        opened, closed = now - rng.randint(HOUR, 20 * DAY), 0
    by_manager = requester.manager is not None and requester.manager.active and rng.random() < 0.3
    opener = requester.manager if by_manager and requester.manager else requester
    row = {
        **TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "requested_for": requester.sys_id,
        "opened_by": opener.sys_id,
        "opened_at": fmt(opened),
        "requested_date": fmt_date(opened),
        "sys_class_name": "sc_request",
    }
    return Task(row, opened, phase, caller=opener, closed=closed)


def _item_state(world: World, phase: str) -> str:
    """A requested item's state in its request's phase."""
    rng = world.rng
    if phase == "open":
        return OPEN_ITEM
    if phase == "in_progress":
        return rng.choices((OPEN_ITEM, "2", "3"), (2, 6, 2))[0]
    return rng.choices(("3", "4", "7"), (85, 9, 6))[0]


def _plan_item(world: World, request: Task, spec: Mapping[str, str], item: Row) -> Task:
    """One requested item (RITM) of a request, with the values the catalog service derives.

    Like ``services/catalog.py`` on insert: the item's name as short description, its unit
    price, its fulfilment group, the request's requester and opener, Open at stage
    ``request_approved`` and approved (catalog items need no approval). A closed item is
    inactive, with when and by whom it was closed and its closed state's stage.
    """
    rng = world.rng
    state = _item_state(world, request.state)
    group = spec["group"]
    closed_state = state in CLOSED_STAGES
    # Fulfilment starts once work does; a skipped item is closed by its group without work.
    worker = member_of(world, group) if state in ("2", "3", "4") else None
    closer = (worker or member_of(world, group)) if closed_state else None
    quantity = 2 if rng.random() < 0.08 else 1
    row = {
        **TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "request": request.row["sys_id"],
        "requested_for": request.row["requested_for"],
        "cat_item": item["sys_id"],
        "short_description": item["name"],
        "quantity": str(quantity),
        "price": money(parse_price(item["price"])),
        "state": state,
        "stage": CLOSED_STAGES[state] if closed_state else OPEN_ITEM_STAGE,
        "approval": "approved",
        "active": "false" if closed_state else "true",
        "opened_by": request.row["opened_by"],
        "opened_at": request.row["opened_at"],
        "assignment_group": item["group"],
        "assigned_to": worker.sys_id if worker else "",
        "sys_class_name": "sc_req_item",
    }
    closed = 0
    if closer is not None:
        closed = request.closed or between(rng, request.opened + HOUR, world.now - MINUTE)
        row["closed_at"] = fmt(closed)
        row["closed_by"] = closer.sys_id
    return Task(row, request.opened, state, group, worker, closed=closed, closer=closer)


def _roll_up(request: Task, lines: list[Task]) -> None:
    """The request's state, total price, text and stamps from its items."""
    row, states = request.row, [line.state for line in lines]
    if all(state in CLOSED_STAGES for state in states):
        state = "3" if "3" in states else "4" if "4" in states else "7"
    elif "2" in states or "3" in states:
        state = "2"
    else:
        state = OPEN_ITEM  # as ordered: the service's new request
    closed = [line.closed for line in lines if line.closed]
    # The catalog's request_total: the sum of price x quantity over the items.
    total = sum((parse_price(line.row["price"]) * int(line.row["quantity"]) for line in lines), Decimal(0))
    names = [line.row["short_description"] for line in lines]
    ordered = "; ".join(f"{line.row['quantity']} x {name}" for line, name in zip(lines, names, strict=True))
    row.update(
        {
            "state": state,
            "request_state": _REQUEST_STATE_NAMES[state],
            "stage": _REQUEST_STATE_NAMES[state],
            "approval": "approved",
            "active": "false" if state in CLOSED_STAGES else "true",
            "price": money(total),
            "short_description": names[0] if len(lines) == 1 else f"Request for {len(lines)} items",
            "description": f"Order: {ordered}",
        }
    )
    if row["active"] == "false":
        last = max(lines, key=lambda line: line.closed)
        row["closed_at"], row["closed_by"] = last.row["closed_at"], last.row["closed_by"]
    assert request.caller is not None
    opener = request.caller.user_name
    row.update(stamps(request.opened, opener, max([request.opened, *closed]), opener, 1 + len(closed)))
    for line in lines:
        worker = line.closer or line.assignee
        actor = worker.user_name if worker else opener
        mods = int(line.state != OPEN_ITEM) + bool(line.closed)
        line.row.update(stamps(request.opened, opener, line.closed or request.opened, actor, mods))
