"""Rows of the annotator's loop read with hand-written SQL, turned into the ORM's own instances.

The ORM compiles a query anew on every call, and for three of the loop's reads that cost more
than a quarter of the loop's throughput (each statement's docstring gives the figure). These helpers name a
model's columns for a SELECT and turn a row back into an instance as the ORM does: each column
through the converters the ORM applies to it (JSON; dates and booleans on SQLite), then
``Model.from_db``. Statements run through ``connection.cursor()``, so Django's query logging and
``execute_wrapper`` hooks see them, and on PostgreSQL psycopg prepares them like the ORM's own
statements (``OPTIONS["server_side_binding"]`` in the settings). A test compares every instance
read here with the ORM's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, TypeVar, cast

from django.db import connections
from django.db.models import Model

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, Any], Any]


@lru_cache(maxsize=256)
def _plan(model: type[Model], alias: str, using: str) -> tuple[str, tuple[str, ...], tuple]:
    connection = connections[using]
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    # A concrete field is one with a column (Django sets ``concrete = column is not None``).
    select = ", ".join(f"{alias}.{quote(cast(str, f.column))}" for f in fields)
    # Only the columns that need converting, each with the converters the ORM's compiler applies.
    plan = []
    for n, f in enumerate(fields):
        col = f.get_col(alias)
        found: list[Converter] = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if found:
            plan.append((n, col, tuple(found)))
    return select, tuple(f.attname for f in fields), tuple(plan)


def columns(model: type[Model], alias: str, using: str = "default") -> str:
    """The model's concrete columns as ``alias."column", …``, in the order ``instance`` reads."""
    return _plan(model, alias, using)[0]


def width(model: type[Model]) -> int:
    """How many columns ``columns`` lists for the model."""
    return len(model._meta.concrete_fields)


def fetchone(sql: str, params: Sequence[Any], using: str = "default") -> tuple | None:
    """The first row of ``sql`` (``%s`` placeholders), or None."""
    with connections[using].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def instance(model: type[M], values: Sequence[Any], alias: str, using: str = "default") -> M:
    """The instance of ``model`` whose columns (as ``columns`` listed them) are ``values``."""
    connection = connections[using]
    _, names, plan = _plan(model, alias, using)
    converted = list(values)
    for n, col, found in plan:
        for convert in found:
            converted[n] = convert(converted[n], col, connection)
    return model.from_db(using, names, converted)
