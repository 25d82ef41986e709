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
from typing import Any

import numpy as np
import pandas as pd
from django.contrib.auth import get_user_model
from django.contrib.postgres.aggregates import ArrayAgg, StringAgg
from django.db import connection
from django.db.models import Aggregate, BinaryField, CharField, Func, Max, Min, QuerySet, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce

from analysis.frame_strings import NULL, SEP, shared_strings, short_strings
from annotation.models import Annotation, Assignment, Item, Project
from annotation.selectors.counted import answers_as_data, counted_as_data
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
    rule = (counted_as_data if counted_only else answers_as_data)(project=project, prefix="assignment__")
    return Annotation.objects.filter(rule, assignment__project=project)


def annotation_frame(*, project: Project, counted_only: bool = True, up_to_id: int | None = None,
                     reasons: bool = True) -> AnnotationFrame:
    """Counted annotations of a project as the long frame, in submission order.

    ``up_to_id`` limits the frame to annotations with an id up to that one, so that a result can
    be recomputed on exactly the annotations it saw. Task types whose answer is one row of
    fixed keys (``TaskType.answer_columns``) are read column by column in the database, without
    decoding each answer in Python; on PostgreSQL in chunks of arrays (``_frame_arrays``), where
    it costs about half the time (figures there). Both paths read what counts as data by the
    one rule of ``annotation.selectors.counted``.
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
    if not reasons:
        common.remove("reason")
        lookups.remove("reason")
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


class _Binary(Func):
    """A value in PostgreSQL's binary form (``int8send``, ``float8send``, ``timestamptz_send``)."""

    output_field = BinaryField()


class _Concatenated(Aggregate):
    """A column's values in binary form, end to end: one bytes value, which numpy reads as an
    array without a Python object per row. Every aggregate of one query reads the rows in the
    same order, so the columns line up."""

    function = "string_agg"
    template = "%(function)s(%(expressions)s, '')"
    output_field = BinaryField()

    def __init__(self, expression: Any, send: str = "") -> None:
        super().__init__(_Binary(expression, function=send) if send else expression)


# Assignment ids per chunk of the bulk path: bounds the memory a chunk's transfer needs.
CHUNK_IDS = 1_000_000
_NAT = np.iinfo(np.int64).min
_NEVER = np.iinfo(np.int64).max
_NO_TIME = _NAT.to_bytes(8, "big", signed=True)
_EPOCH_2000_US = 946_684_800_000_000  # 2000-01-01T00:00:00Z in microseconds since 1970


def _frame_arrays(project: Project, task, *, counted_only: bool, up_to_id: int | None,
                  reasons: bool, meanwhile: Callable[[], None] | None = None) -> pd.DataFrame:
    """PostgreSQL: per chunk of assignment ids, one query reads the assignments and one the
    annotations, each column aggregated into one value (``_Concatenated``; answer values as one
    separated string). Both are ORM querysets: the assignments' is filtered by the rule of what
    counts as data (``annotation.selectors.counted``), as the row-by-row path is. The two tables
    are joined here, by assignment id: a join in the database costs more than both reads.
    Outside a transaction the two queries of a chunk run on two threads, each on its own
    connection, so both cores work.

    No hand-written SQL: the aggregates are ORM expressions (``_Concatenated``, ``StringAgg``,
    ``ArrayAgg``). The path earns its place beside the row-by-row one by throughput:
    ``bench/frame_paths.py`` on UKPConvArg1 (84,445 annotations, PostgreSQL 15, 2 cores shared
    with other work, load 8.7-10), medians of 7 alternating runs: with the reasons 1.57 s here
    against 2.96 s row by row, without them 1.05 s against 2.38 s; reading row by row would cost
    47% and 56% of the throughput.
    """
    from concurrent.futures import ThreadPoolExecutor

    bounds = Assignment.objects.filter(project=project).aggregate(low=Min("pk"), high=Max("pk"))
    low, high = bounds["low"], bounds["high"]
    if low is None:
        return pd.DataFrame()
    data = counted_as_data(project=project) if counted_only else answers_as_data(project=project)
    assignments = Assignment.objects.filter(data, project=project)
    columns = {
        "a_id": _Concatenated("pk", "int8send"), "a_item": _Concatenated("item_id", "int8send"),
        "a_worker": _Concatenated("worker_id", "int8send"),
        # timestamptz_send gives microseconds since 2000-01-01 (UTC); no time gets the int64
        # minimum, pandas' NaT, so that every column keeps one value per row.
        "a_at": _Concatenated(Coalesce(_Binary("submitted_at", function="timestamptz_send"),
                                       Value(_NO_TIME, output_field=BinaryField()))),
    }
    answers = Annotation.objects.all() if up_to_id is None else Annotation.objects.filter(pk__lte=up_to_id)
    answer_columns = {
        "n_assignment": _Concatenated("assignment_id", "int8send"), "n_id": _Concatenated("pk", "int8send"),
        "n_seconds": _Concatenated(Coalesce("seconds", Value(float("nan"))), "float8send"),
        "n_client": _Concatenated(Coalesce("client_seconds", Value(float("nan"))), "float8send"),
        # Text is read as one separated string: parsing an array of texts costs more.
        **({"n_reason": StringAgg("reason", delimiter=SEP)} if reasons else {}),
        **{f"n_key{n}": StringAgg(Coalesce(KeyTextTransform(key, "answer"), Value(NULL)), delimiter=SEP)
           for n, key in enumerate(task.answer_columns)},
    }
    own_thread = threading.get_ident()

    def query(queryset: QuerySet, aggregates: dict[str, Any], chunk: tuple[int, int], field: str) -> dict[str, Any]:
        try:
            return queryset.filter(**{f"{field}__gte": chunk[0], f"{field}__lte": chunk[1]}).aggregate(**aggregates)
        finally:
            if threading.get_ident() != own_thread:  # a pool thread's own connection
                connection.close()

    def numbers(value: bytes | None, dtype: str) -> np.ndarray:
        return np.frombuffer(value, dtype=dtype).astype(dtype[1:]) if value else np.empty(0, dtype=dtype[1:])

    def join(chunk: tuple[int, int], a_row: dict[str, Any], n_row: dict[str, Any]) -> dict[str, Any] | None:
        a_id, a_item, a_worker, a_at = (numbers(a_row[name], ">i8") for name in columns)
        # No time, and 'infinity' (the int64 maximum, which the platform never writes): NaT.
        a_at = np.where((a_at == _NAT) | (a_at == _NEVER), _NAT, a_at + _EPOCH_2000_US)
        n_assignment, n_id = numbers(n_row["n_assignment"], ">i8"), numbers(n_row["n_id"], ">i8")
        n_seconds, n_client = numbers(n_row["n_seconds"], ">f8"), numbers(n_row["n_client"], ">f8")
        order = np.argsort(a_id, kind="stable")
        a_id = a_id[order]
        where = np.minimum(np.searchsorted(a_id, n_assignment), max(len(a_id) - 1, 0))
        keep = (a_id[where] == n_assignment) if len(a_id) else np.zeros(len(n_assignment), dtype=bool)
        if not keep.any():
            return None
        at = order[where[keep]]
        part = {"annotation": n_id[keep], "item": a_item[at], "worker": a_worker[at], "seconds": n_seconds[keep],
                "client_seconds": n_client[keep], "submitted_at": a_at[at]}
        def texts(joined: str | None, value: Any) -> list:
            values = (joined or "").split(SEP)
            if len(values) != len(n_id):  # a value holds the separator: read this column as an array
                values = query(answers, {"values": ArrayAgg(value)}, chunk, "assignment")["values"] or []
            return values

        if reasons:
            part["reason"] = np.array(texts(n_row["n_reason"], "reason"), dtype=object)[keep]
        for n, (key, name) in enumerate(zip(task.answer_columns, answer_frame_columns(task), strict=True)):
            joined = n_row[f"n_key{n}"] or ""
            column = short_strings(joined, len(n_id))
            if column is None:
                column = shared_strings(texts(joined, KeyTextTransform(key, "answer")))
            part[name] = column[keep]
        return part

    ranges = [(lo, min(lo + CHUNK_IDS - 1, high)) for lo in range(low, high + 1, CHUNK_IDS)]
    parts: list[dict[str, Any] | None] = []
    # Inside a transaction a second connection would not see its writes: read on this one.
    if connection.in_atomic_block:
        for chunk in ranges:
            parts.append(join(chunk, query(assignments, columns, chunk, "pk"),
                              query(answers, answer_columns, chunk, "assignment")))
    else:
        # Two connections read ahead (at most two chunks in flight, for bounded memory) while
        # this thread joins the chunk that arrived.
        with ThreadPoolExecutor(max_workers=2) as pool:
            pending = []
            for n, chunk in enumerate(ranges):
                pending.append((chunk, pool.submit(query, assignments, columns, chunk, "pk"),
                                pool.submit(query, answers, answer_columns, chunk, "assignment")))
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
    read = Item.objects.filter(project=project).aggregate(ids=_Concatenated("pk", "int8send"),
                                                          external=ArrayAgg("external_id"))
    if read["ids"] is None:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=object)
    names = np.empty(len(read["external"]), dtype=object)
    names[:] = read["external"]
    return np.frombuffer(read["ids"], dtype=">i8").astype(np.int64), names


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

