"""The one bridge from the database to pandas: annotations as the long frame.

Every task type maps an answer to rows through ``TaskType.long_rows``; here those rows get the
common columns. Columns: ``item`` (external id), ``worker`` (user name), ``label``, whatever the
task type adds (e.g. the worker's standpoint; ``option`` for binary questions of multi-select
answers), and ``reason``, ``seconds`` (the server's time), ``client_seconds`` (the browser's own
count, evidence only), ``submitted_at``, ``annotation`` (id).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import CharField
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from analysis.frame_strings import NULL, SEP, shared_strings, short_strings
from annotation.models import (
    Annotation,
    Assignment,
    Item,
    ItemKind,
    Project,
    Purpose,
    Standing,
)
from annotation.quality_port import blocked_ids_sql
from annotation.selectors.counted import answers_as_data, blocked_answers_excluded
from annotation.task_types import get_task_type
from annotation.task_types.base import TaskType

BASE_COLUMNS = ["item", "worker", "label", "reason", "seconds", "client_seconds", "submitted_at", "annotation"]


@dataclass(frozen=True)
class AnnotationFrame:
    frame: pd.DataFrame
    annotations: int
    last_annotation_id: int | None


def annotations_queryset(*, project: Project, counted_only: bool = True):
    """The project's annotations that are data (``annotation.selectors.counted``): never a gold
    or training answer, nor an answer to a withdrawn item, nor (while the project says so) one of a
    worker blocked in it; ``counted_only``: submitted or approved."""
    qs = Annotation.objects.filter(answers_as_data(project=project, prefix="assignment__"), assignment__project=project)
    if counted_only:
        qs = qs.filter(assignment__status__in=Assignment.COUNTED_STATUSES)
    return qs


def annotation_frame(*, project: Project, counted_only: bool = True, up_to_id: int | None = None,
                     reasons: bool = True) -> AnnotationFrame:
    """Counted annotations of a project as the long frame, in submission order.

    ``up_to_id`` limits the frame to annotations with an id up to that one, so that a result can
    be recomputed on exactly the annotations it saw. Task types whose answer is one row of
    fixed keys (``TaskType.answer_columns``) are read column by column in the database, without
    decoding each answer in Python; on PostgreSQL in chunks of arrays (``_frame_arrays``).
    ``reasons=False`` leaves the reasons out (an empty column): they are most of the frame's
    memory, and most analyses never read them.
    """
    # Millions of new strings and arrays, none in a reference cycle: the cyclic collector would
    # only walk them again and again while they are made.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _annotation_frame(project=project, counted_only=counted_only, up_to_id=up_to_id, reasons=reasons)
    finally:
        if collecting:
            gc.enable()


def _annotation_frame(*, project: Project, counted_only: bool, up_to_id: int | None, reasons: bool) -> AnnotationFrame:
    task = get_task_type(project.task_type)
    qs = annotations_queryset(project=project, counted_only=counted_only)
    if up_to_id is not None:
        qs = qs.filter(pk__lte=up_to_id)
    common = ["annotation", "item", "worker", "reason", "seconds", "client_seconds", "submitted_at"]
    # Ids are mapped to names afterwards: two small lookups cost less than joining every row.
    lookups = ["pk", "assignment__item_id", "assignment__worker_id", "reason", "seconds", "client_seconds",
               "submitted_text"]
    # Times come as text and are parsed by pandas at once: converting a million datetimes one
    # by one in the database driver takes longer than the query.
    qs = qs.annotate(submitted_text=Cast("assignment__submitted_at", output_field=CharField()))
    prefetched: dict[str, Any] = {}
    if task.answer_columns and _bulk_available():
        # The items' names are read while the first chunk's queries run on the other connections.
        frame = _frame_arrays(project, task, counted_only=counted_only, up_to_id=up_to_id, reasons=reasons,
                              meanwhile=lambda: prefetched.update(items=_item_names_bulk(project)))
    elif task.answer_columns:
        keys = {f"answer_{key}": KeyTextTransform(key, "answer") for key in task.answer_columns}
        records = list(qs.annotate(**keys).values_list(*lookups, *keys).iterator(chunk_size=20000))
        frame = pd.DataFrame.from_records(records, columns=[*common, *answer_frame_columns(task)])
    else:
        frame = _frame_from_long_rows(project, task, qs, lookups, common)
    if frame.empty:
        frame = pd.DataFrame(columns=BASE_COLUMNS)
    else:
        frame["item"], frame["worker"] = _names(project, frame, items=prefetched.get("items"))
        # Most answers carry no client time: NaN, as the bulk path reads it, not None.
        frame["client_seconds"] = frame["client_seconds"].astype(float)
        if not pd.api.types.is_datetime64_any_dtype(frame["submitted_at"]):
            frame["submitted_at"] = pd.to_datetime(frame["submitted_at"], utc=True, format="ISO8601")
    frame = _in_submission_order(frame)
    if "reason" not in frame.columns:
        frame["reason"] = ""
    extra = [c for c in frame.columns if c not in BASE_COLUMNS]
    frame = frame[["item", "worker", "label", *extra, *BASE_COLUMNS[3:]]]
    # One row per annotation, unless the type gives several (binary questions of a set).
    n = (len(frame) if task.answer_columns else frame["annotation"].nunique()) if len(frame) else 0
    last_id = int(frame["annotation"].max()) if len(frame) else None
    return AnnotationFrame(frame=frame, annotations=int(n), last_annotation_id=last_id)


def answer_frame_columns(task: TaskType) -> tuple[str, ...]:
    """The frame's names of a type's ``answer_columns``: the first is the ``label``, whatever the
    answer calls it (a rating, a choice); the others keep their keys."""
    return ("label", *task.answer_columns[1:])


def _in_submission_order(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows by submission time, then annotation id; the frame as it is when already so (then no
    copy is made: ids and times often rise together)."""
    if len(frame) < 2:
        return frame.reset_index(drop=True)
    at = pd.DatetimeIndex(frame["submitted_at"]).asi8  # integers: NaT is the smallest one
    ids = frame["annotation"].to_numpy()
    step_at, step_id = at[1:] >= at[:-1], ids[1:] > ids[:-1]
    if not (at == np.iinfo(np.int64).min).any() and (step_at & ((at[1:] > at[:-1]) | step_id)).all():
        return frame.reset_index(drop=True)
    # Sorting here is cheaper than an ORDER BY over the joined tables.
    return frame.sort_values(["submitted_at", "annotation"], kind="stable", ignore_index=True)


def _bulk_available() -> bool:
    # The bulk path aggregates columns with PostgreSQL's own functions (int8send), not SQLite's.
    return connection.vendor == "postgresql"


# Assignment ids per chunk of the bulk path: bounds the memory a chunk's transfer needs.
CHUNK_IDS = 1_000_000
_NAT = np.iinfo(np.int64).min
_NEVER = np.iinfo(np.int64).max
_NO_TIME = _NAT.to_bytes(8, "big", signed=True)
_EPOCH_2000_US = 946_684_800_000_000  # 2000-01-01T00:00:00Z in microseconds since 1970


def _frame_arrays(project: Project, task, *, counted_only: bool, up_to_id: int | None,
                  reasons: bool, meanwhile: Callable[[], None] | None = None) -> pd.DataFrame:
    """PostgreSQL: per chunk of assignment ids, one query reads the assignments and one the
    annotations, each column aggregated into one value: numbers as the bytes of their binary
    form (``int8send``), read by numpy without a Python object per row, and answer values as one
    separated string. The two tables are joined here, by assignment id: a join in the database
    costs more than both reads. Outside a transaction the two queries of a chunk run on two
    connections at once, so both cores work."""
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT MIN(id), MAX(id) FROM {Assignment._meta.db_table} WHERE project_id = %s", [project.pk])
        low, high = cursor.fetchone()
    if low is None:
        return pd.DataFrame()
    status = Assignment.Status
    counted = "AND status IN (%(submitted)s, %(approved)s)" if counted_only else ""
    # Answers that are data (``annotation.selectors.counted``): tasks, not to withdrawn items
    # (few: the subquery reads them once, through the index on the items' kind), not by a worker
    # blocked in the project while the project leaves their answers out.
    assignments_sql = f"""
        SELECT string_agg(int8send(id), ''), string_agg(int8send(item_id), ''), string_agg(int8send(worker_id), ''),
               string_agg(COALESCE(timestamptz_send(submitted_at), %(no_time)s), '')
        FROM {Assignment._meta.db_table}
        WHERE project_id = %(project)s AND id BETWEEN %(low)s AND %(high)s {counted} AND purpose = %(task)s
          AND item_id NOT IN (SELECT id FROM {Item._meta.db_table} WHERE project_id = %(project)s AND kind = %(withdrawn)s)
          AND worker_id NOT IN ({blocked_ids_sql()} AND %(exclude_blocked)s)
    """
    keys = "".join(f", string_agg(COALESCE(answer ->> %(key{n})s, %(null)s), %(sep)s)"
                   for n in range(len(task.answer_columns)))
    annotations_sql = f"""
        SELECT string_agg(int8send(assignment_id), ''), string_agg(int8send(id), ''),
               string_agg(float8send(COALESCE(seconds, 'NaN')), ''),
               string_agg(float8send(COALESCE(client_seconds, 'NaN')), '') {", array_agg(reason)" if reasons else ""} {keys}
        FROM {Annotation._meta.db_table}
        WHERE assignment_id BETWEEN %(low)s AND %(high)s {"AND id <= %(up_to)s" if up_to_id is not None else ""}
    """
    # timestamptz_send gives microseconds since 2000-01-01 (UTC); no time gets the int64 minimum,
    # pandas' NaT, so that every column keeps one value per row.
    base = {"no_time": _NO_TIME, "project": project.pk, "submitted": status.SUBMITTED, "approved": status.APPROVED, "up_to": up_to_id,
            "task": Purpose.TASK, "withdrawn": ItemKind.WITHDRAWN,
            "blocked": Standing.BLOCKED, "exclude_blocked": blocked_answers_excluded(project=project),
            "sep": SEP, "null": NULL, **{f"key{n}": key for n, key in enumerate(task.answer_columns)}}
    own_thread = threading.get_ident()

    def query(sql: str, chunk: tuple[int, int]) -> tuple:
        try:
            connection.ensure_connection()
            # A cursor of psycopg's own (Django's binds on the client, in text): binary results.
            with psycopg.Cursor(connection.connection) as cursor:
                cursor.execute(sql, {**base, "low": chunk[0], "high": chunk[1]}, binary=True)
                # Aggregates without GROUP BY: always exactly one row.
                return cast(tuple, cursor.fetchone())
        finally:
            if threading.get_ident() != own_thread:  # a pool thread's own connection
                connection.close()

    def numbers(value: bytes | None, dtype: str) -> np.ndarray:
        return np.frombuffer(value, dtype=dtype).astype(dtype[1:]) if value else np.empty(0, dtype=dtype[1:])

    def join(chunk: tuple[int, int], a_row: tuple, n_row: tuple) -> dict[str, Any] | None:
        a_id, a_item, a_worker, a_at = (numbers(v, ">i8") for v in a_row)
        # No time, and 'infinity' (the int64 maximum, which the platform never writes): NaT.
        a_at = np.where((a_at == _NAT) | (a_at == _NEVER), _NAT, a_at + _EPOCH_2000_US)
        n_assignment, n_id, n_seconds = numbers(n_row[0], ">i8"), numbers(n_row[1], ">i8"), numbers(n_row[2], ">f8")
        n_client = numbers(n_row[3], ">f8")
        order = np.argsort(a_id, kind="stable")
        a_id = a_id[order]
        where = np.minimum(np.searchsorted(a_id, n_assignment), max(len(a_id) - 1, 0))
        keep = (a_id[where] == n_assignment) if len(a_id) else np.zeros(len(n_assignment), dtype=bool)
        if not keep.any():
            return None
        at = order[where[keep]]
        part = {"annotation": n_id[keep], "item": a_item[at], "worker": a_worker[at], "seconds": n_seconds[keep],
                "client_seconds": n_client[keep], "submitted_at": a_at[at]}
        texts = list(n_row[4:])
        if reasons:
            part["reason"] = np.array(texts.pop(0), dtype=object)[keep]
        for n, (key, name, joined) in enumerate(zip(task.answer_columns, answer_frame_columns(task), texts,
                                                    strict=True)):
            column = short_strings(joined, len(n_id))
            if column is None:
                values = joined.split(SEP)
                if len(values) != len(n_id):  # a value holds the separator: read this column as an array
                    values = _answer_array(key, n, chunk, base, up_to_id)
                column = shared_strings(values)
            part[name] = column[keep]
        return part

    ranges = [(lo, min(lo + CHUNK_IDS - 1, high)) for lo in range(low, high + 1, CHUNK_IDS)]
    parts: list[dict[str, Any] | None] = []
    # Inside a transaction a second connection would not see its writes: read on this one.
    if connection.in_atomic_block:
        for chunk in ranges:
            parts.append(join(chunk, query(assignments_sql, chunk), query(annotations_sql, chunk)))
    else:
        # Two connections read ahead (at most two chunks in flight, for bounded memory) while
        # this thread joins the chunk that arrived.
        with ThreadPoolExecutor(max_workers=2) as pool:
            pending = []
            for n, chunk in enumerate(ranges):
                pending.append((chunk, pool.submit(query, assignments_sql, chunk),
                                pool.submit(query, annotations_sql, chunk)))
                if n == 0 and meanwhile is not None:
                    meanwhile()  # on this thread's own connection, while the pool reads
                if n >= 1 or n == len(ranges) - 1:
                    while pending and (len(pending) > 1 or n == len(ranges) - 1):
                        done, a_row, n_row = pending.pop(0)
                        parts.append(join(done, a_row.result(), n_row.result()))
    joined = [p for p in parts if p is not None]
    del parts
    if not joined:
        return pd.DataFrame()
    # Without a copy into pandas' blocks: each column stays the one array just made.
    frame = pd.DataFrame({name: np.concatenate([p[name] for p in joined]) for name in joined[0]}, copy=False)
    del joined
    frame["submitted_at"] = pd.to_datetime(frame["submitted_at"], unit="us", utc=True)
    return frame


def _answer_array(key: str, n: int, chunk: tuple[int, int], base: dict, up_to_id: int | None) -> list:
    sql = (f"SELECT array_agg(answer ->> %(key{n})s) FROM {Annotation._meta.db_table} "
           f"WHERE assignment_id BETWEEN %(low)s AND %(high)s {'AND id <= %(up_to)s' if up_to_id is not None else ''}")
    with connection.cursor() as cursor:
        cursor.execute(sql, {**base, "low": chunk[0], "high": chunk[1]})
        return cursor.fetchone()[0] or []


def _names(project: Project, frame: pd.DataFrame, *, items: tuple[np.ndarray, np.ndarray] | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Item external ids and worker user names for the frame's id columns; ``items`` are the
    project's item ids and external ids when already read."""
    item_ids = frame["item"].to_numpy(dtype=np.int64)
    worker_ids = frame["worker"].to_numpy(dtype=np.int64)
    wanted_workers = pd.unique(worker_ids)
    if items is not None:
        keys, names = items
    elif _bulk_available():
        keys, names = _item_names_bulk(project)
    else:
        keys, names = _pairs(list(Item.objects.filter(project=project).values_list("pk", "external_id")))
    users = get_user_model().objects.filter(pk__in=wanted_workers.tolist()).values_list("pk", "username")
    return _lookup(item_ids, keys, names), _lookup(worker_ids, *_pairs(list(users)))


def _item_names_bulk(project: Project) -> tuple[np.ndarray, np.ndarray]:
    """PostgreSQL: the project's item ids and external ids, as two values (ids in binary)."""
    import psycopg

    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(f"SELECT string_agg(int8send(id), ''), array_agg(external_id) "
                       f"FROM {Item._meta.db_table} WHERE project_id = %s", [project.pk], binary=True)
        ids, external = cast(tuple, cursor.fetchone())  # an aggregate without GROUP BY: one row
    if ids is None:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=object)
    names = np.empty(len(external), dtype=object)
    names[:] = external
    return np.frombuffer(ids, dtype=">i8").astype(np.int64), names


def _pairs(pairs: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    keys = np.fromiter((k for k, _ in pairs), dtype=np.int64, count=len(pairs))
    names = np.empty(len(pairs), dtype=object)
    names[:] = [v for _, v in pairs]
    return keys, names


def _lookup(ids: np.ndarray, keys: np.ndarray, names: np.ndarray) -> np.ndarray:
    """``ids`` replaced by the names given to ``keys`` (one shared string each). Ids of one
    project mostly lie in a narrow range: then a table indexed by id, else a binary search."""
    if not len(keys):
        return np.full(len(ids), None, dtype=object)
    low, high = int(keys.min()), int(keys.max())
    if high - low < 4 * len(keys) + 1024:
        table = np.full(high - low + 1, None, dtype=object)
        table[keys - low] = names
        return table[ids - low]
    order = np.argsort(keys, kind="stable")
    keys, names = keys[order], names[order]
    where = np.searchsorted(keys, ids)
    return names[np.minimum(where, len(keys) - 1)]


def _frame_from_long_rows(project, task, qs, lookups, common) -> pd.DataFrame:
    payloads = {}
    if task.long_rows_use_payload:
        payloads = dict(Item.objects.filter(project=project).values_list("pk", "payload"))
    rows = []
    for values in qs.values_list(*lookups, "assignment__item_id", "answer").iterator(chunk_size=5000):
        base = dict(zip(common, values[:-2], strict=True))
        for row in task.long_rows(payload=payloads.get(values[-2], {}), answer=values[-1]):
            rows.append({**base, **row})
    return pd.DataFrame(rows)

