"""SQLModel classes built from a :class:`Catalog`, one SQLAlchemy registry per system.

SQLModel's default metadata is global and two systems may share a table name, so each system
gets its own ``registry()``. The classes are generated from the catalog rather than written
out by hand, so the observed API schema stays the single source of the field list.
"""

from __future__ import annotations

import types
from typing import Any

from sqlalchemy import Index, MetaData
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from enterprise_envs.mocks._core.schema import Catalog, TableSpec


def _class_name(table: str) -> str:
    return "".join(part.capitalize() for part in table.split("_"))


def build_models(catalog: Catalog) -> tuple[MetaData, dict[str, type[SQLModel]]]:
    """Create one SQLModel table class per catalog table, on a fresh registry.

    Args:
        catalog: The system's tables.

    Returns:
        The registry's metadata (for ``create_all``) and the classes by table name. Every
        column is a non-null string defaulting to ``""``, as the vendor API represents values.
    """
    base = types.new_class(
        f"{_class_name(catalog.system)}Base", (SQLModel,), {"registry": registry()}, lambda ns: None
    )
    models: dict[str, type[SQLModel]] = {}
    for table in catalog.values():
        models[table.name] = _table_model(base, table)
    return base.metadata, models


def _table_model(base: type[SQLModel], table: TableSpec) -> type[SQLModel]:
    namespace: dict[str, Any] = {
        "__annotations__": {spec.name: str for spec in table.fields},
        "__tablename__": table.name,
        "__table_args__": tuple(
            Index(f"ix_{table.name}_{'_'.join(cols)}", *cols) for cols in table.indexes
        ),
    }
    for spec in table.fields:
        namespace[spec.name] = Field(default="", primary_key=spec.name == "sys_id")
    return types.new_class(_class_name(table.name), (base,), {"table": True}, lambda ns: ns.update(namespace))
