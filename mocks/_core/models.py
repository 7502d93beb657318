"""SQLModel classes built from a :class:`Catalog`, one SQLAlchemy registry per system.

SQLModel's default metadata is global and two systems may share a table name, so each system
gets its own ``registry()``. The classes are generated from the catalog rather than written
out by hand, so the observed API schema stays the single source of the field list.
"""

from __future__ import annotations

import sqlite3
import types
from typing import Any

from sqlalchemy import MetaData, create_engine
from sqlalchemy.orm import registry
from sqlalchemy.pool import StaticPool
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
    }
    key = table.key_field
    for spec in table.fields:
        namespace[spec.name] = Field(default="", primary_key=spec.name == key)
    return types.new_class(_class_name(table.name), (base,), {"table": True}, lambda ns: ns.update(namespace))


def create_schema(conn: sqlite3.Connection, metadata: MetaData, catalog: Catalog) -> None:
    """Create the tables (from the SQLModel metadata) and the catalog's indexes on a connection.

    Indexes are created here, in catalog order, rather than declared on the models: SQLAlchemy
    keeps a table's indexes in a set, so ``create_all`` would emit them in an order that depends
    on ``PYTHONHASHSEED``, and the serialized world would differ between processes.
    """
    engine = create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool)
    metadata.create_all(engine)
    for table in catalog.values():
        for columns in table.indexes:
            name = f"ix_{table.name}_{'_'.join(columns)}"
            quoted = ", ".join(f'"{column}"' for column in columns)
            conn.execute(f'CREATE INDEX "{name}" ON "{table.name}" ({quoted})')
