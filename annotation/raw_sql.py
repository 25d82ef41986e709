"""Model instances read with hand-written SQL, for the few statements on the annotator's hot path.

The ORM compiles a query anew on every call; for a read of four joined tables that costs more
than the query itself (about 1.5 ms of the 2 ms a submit's locked read took). These helpers name
a model's columns for a SELECT and turn a row back into an instance with the converters the ORM
itself applies (JSON, and dates on SQLite), so that the instance is the one ``.get()`` would give.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, TypeVar, cast

from django.conf import settings
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import Model

M = TypeVar("M", bound=Model)


class _LoggedCursor(CursorDebugWrapper):
    """Django's debug cursor, logging the statement as sent (placeholders, not values): Django
    reads the executed text back from a client-bound cursor, which this one is not."""

    def execute(self, sql, params=None):
        with self.debug_sql(sql, params):
            return CursorWrapper.execute(self, sql, params)


@lru_cache(maxsize=256)
def _plan(model: type[Model], alias: str, connection: BaseDatabaseWrapper) -> tuple[str, tuple[str, ...], tuple]:
    # Per connection (one per thread): a backend's converters are methods of its own ``ops``.
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    # A concrete field is one with a column (Django sets ``concrete = column is not None``).
    select = ", ".join(f"{alias}.{quote(cast(str, f.column))}" for f in fields)
    converters = []
    for f in fields:
        col = f.get_col(alias)
        found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        converters.append((col, tuple(found)))
    return select, tuple(f.attname for f in fields), tuple(converters)


def columns(model: type[Model], alias: str, using: str = "default") -> str:
    """The model's concrete columns as ``alias."column", …``, in the order ``instance`` reads."""
    return _plan(model, alias, connections[using])[0]


def split(row: Sequence[Any], *models: type[Model]) -> list[Sequence[Any]]:
    """A row that selected ``columns`` of each of ``models`` in turn, cut into one part per model,
    then a last part with the values selected after them."""
    parts, start = [], 0
    for model in models:
        stop = start + len(model._meta.concrete_fields)
        parts.append(row[start:stop])
        start = stop
    parts.append(row[start:])
    return parts


def fetchone(sql: str, params: Sequence[Any] | dict[str, Any], using: str = "default") -> tuple | None:
    """The first row of ``sql`` (``%s`` or ``%(name)s`` placeholders), through Django's cursor
    wrapper (query logging, ``execute_wrapper`` hooks and Django's errors all apply).

    On PostgreSQL the statement is sent with its parameters apart and, unless
    ``DATABASE_PREPARED`` is off, prepared on the connection the first time, so that the server
    plans it once rather than on every request (planning took about as long as running these
    short statements). Only these statements are prepared: the ORM's own are bound on the client.
    """
    connection = connections[using]
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()
    import psycopg

    connection.ensure_connection()
    raw = connection.connection
    raw_cursor = psycopg.Cursor(raw)
    # django-stubs types make_cursor's argument as a CursorWrapper; Django wraps a DB-API cursor in one.
    wrapped = (_LoggedCursor(raw_cursor, connection) if connection.queries_logged
               else connection.make_cursor(raw_cursor))  # type: ignore[arg-type]
    # Threshold 0: prepare at the first execution. Restored at once, so that psycopg keeps no
    # record of the ORM's statements (their text holds their values).
    before = raw.prepare_threshold
    raw.prepare_threshold = 0 if settings.DATABASE_PREPARED else None
    try:
        with wrapped:
            wrapped.execute(sql, params)
            return wrapped.fetchone()
    finally:
        raw.prepare_threshold = before


def instance(model: type[M], values: Sequence[Any], alias: str, using: str = "default") -> M:
    """The instance of ``model`` whose columns (as ``columns`` listed them) are ``values``."""
    connection = connections[using]
    _, names, converters = _plan(model, alias, connection)
    converted = list(values)
    for n, (col, found) in enumerate(converters):
        for convert in found:
            converted[n] = convert(converted[n], col, connection)
    return model.from_db(using, names, converted)
