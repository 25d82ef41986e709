"""Writing many rows of a model at once, for imports of tens of thousands of them.

``bulk_create`` composes every value of every row through the ORM's insert compiler (a field's
``pre_save`` and ``get_db_prep_save``, a placeholder, a parameter each). With it in place of
``rows_insert``, importing UKPConvArg1's 84,445 crowd labels took 1.9 times as long on SQLite
and 2.0 times on PostgreSQL (``bench/ukpconvarg_paths.py import --against`` a checkout where
``rows_insert`` calls ``bulk_create``; medians of two runs each). Here each value is still
adapted by its field as ``bulk_create`` adapts it, and a chunk of rows goes to the database in
one statement: PostgreSQL's COPY, SQLite's ``executemany`` (a loop in C). A test compares what
both store, column by column as text (tests/annotation/services/test_bulk_insert.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, cast

from django.db import connection
from django.db.models import DateTimeField, Field, JSONField, Model
from django.utils import timezone

# Fields whose Python values (ints, text, floats) the drivers write as the ORM would: no
# adaptation per value.
_AS_THEY_ARE = frozenset({
    "AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField", "SmallIntegerField",
    "PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField", "CharField", "TextField",
    "SlugField", "FloatField", "ForeignKey", "OneToOneField",
})
# Rows per statement: COPY streams them, executemany keeps one list of them.
CHUNK_ROWS = 10_000


def rows_insert(*, model: type[Model], columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Insert rows of ``model``, each a sequence of Python values for ``columns`` (attnames such
    as ``item_id``); every other column but the primary key gets its field's default, and
    ``auto_now``/``auto_now_add`` fields the time of the call. Returns how many rows were
    written. Their primary keys are not returned: read them back by a unique key."""
    meta = model._meta
    fields = [cast(Field, meta.get_field(name)) for name in columns]  # concrete fields, by their attnames
    now = timezone.now()
    rest = [f for f in meta.concrete_fields if not f.primary_key and f not in fields]
    constants = tuple(f.get_db_prep_save(now if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
                                         else f.get_default(), connection) for f in rest)
    adapted = [(n, _adapter(f)) for n, f in enumerate(fields) if f.get_internal_type() not in _AS_THEY_ARE]
    quote = connection.ops.quote_name
    names = ", ".join(quote(str(f.column)) for f in [*fields, *rest])
    table = quote(meta.db_table)
    written = 0
    with connection.cursor() as cursor:
        # COPY is PostgreSQL's bulk load (psycopg's cursors offer it); SQLite has executemany.
        copy = getattr(cursor, "copy", None)
        batch: list[tuple[Any, ...]] = []
        for row in rows:
            if len(row) != len(fields):
                raise ValueError(f"a row of {len(row)} values for {len(fields)} columns")
            values = list(row)
            for n, adapt in adapted:
                values[n] = adapt(values[n])
            batch.append((*values, *constants))
            if len(batch) == CHUNK_ROWS:
                written += _write(cursor, copy, table, names, batch)
                batch = []
        if batch:
            written += _write(cursor, copy, table, names, batch)
    return written


def _adapter(field: Field) -> Callable[[Any], Any]:
    """``get_db_prep_save`` of the field; for the values an import holds most (aware times, JSON)
    the backend's adaptation it ends in, without the checks on the way."""
    if isinstance(field, DateTimeField):
        as_time = connection.ops.adapt_datetimefield_value
        return lambda value: (as_time(value) if isinstance(value, datetime) and value.utcoffset() is not None
                              else field.get_db_prep_save(value, connection))
    if isinstance(field, JSONField):
        as_json, encoder = connection.ops.adapt_json_value, field.encoder
        return lambda value: None if value is None else as_json(value, encoder)
    return lambda value: field.get_db_prep_save(value, connection)


def _write(cursor: Any, copy: Callable[[str], Any] | None, table: str, names: str, batch: list[tuple[Any, ...]]) -> int:
    if copy is not None:
        with copy(f"COPY {table} ({names}) FROM STDIN") as stream:
            for row in batch:
                stream.write_row(row)
    else:
        placeholders = ", ".join(["%s"] * len(batch[0]))
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({placeholders})", batch)
    return len(batch)
