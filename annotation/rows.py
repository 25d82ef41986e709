"""Model instances read with hand-written SQL, for the few reads on the annotator's hot path.

The ORM compiles a query anew on every call; for a read of four joined tables that costs more
than the query itself (about 1.5 ms of the 2 ms a submit's locked read took). These helpers name
a model's columns for a SELECT and turn a row back into an instance with the converters the ORM
itself applies (JSON, and dates on SQLite), so that the instance is the one ``.get()`` would give.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import connections
from django.db.models import Model


@cache
def _plan(model: type[Model], alias: str, using: str) -> tuple[str, tuple[str, ...], tuple]:
    connection = connections[using]
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    select = ", ".join(f"{alias}.{quote(f.column)}" for f in fields)
    converters = []
    for f in fields:
        col = f.get_col(alias)
        found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        converters.append((col, tuple(found)))
    return select, tuple(f.attname for f in fields), tuple(converters)


def columns(model: type[Model], alias: str, using: str = "default") -> str:
    """The model's concrete columns as ``alias."column", …``, in the order ``instance`` reads."""
    return _plan(model, alias, using)[0]


def width(model: type[Model]) -> int:
    """How many values of a row ``columns`` selects."""
    return len(model._meta.concrete_fields)


def fetchone(sql: str, params: Sequence[Any] | dict[str, Any], using: str = "default") -> tuple | None:
    """The first row of ``sql`` (``%s`` or ``%(name)s`` placeholders).

    On PostgreSQL the statement is sent with its parameters apart and prepared on the
    connection, so that the server plans it once rather than on every request (planning took
    about as long as running these short statements). Errors are Django's, as from a cursor.
    """
    connection = connections[using]
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, prepare=True)
        return cursor.fetchone()


def instance(model: type[Model], values: Sequence[Any], alias: str, using: str = "default") -> Model:
    """The instance of ``model`` whose columns (as ``columns`` listed them) are ``values``."""
    _, names, converters = _plan(model, alias, using)
    connection = connections[using]
    converted = list(values)
    for n, (col, found) in enumerate(converters):
        for convert in found:
            converted[n] = convert(converted[n], col, connection)
    return model.from_db(using, names, converted)
