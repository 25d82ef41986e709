"""Raw annotation exports (CSV, JSON, JSONL), streamed row by row.

The annotation export reads plain values (``values_list`` with a server-side cursor on
PostgreSQL, chunked reads on SQLite) and times as text, never model objects: five models and
seven parsed timestamps per row would cost most of its time. Its memory does not grow with the
project: rows are read, written and dropped a chunk at a time.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from itertools import islice
from operator import itemgetter
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import JSONField, Model, TextField
from django.db.models.functions import Cast
from django.http import StreamingHttpResponse

from annotation import quality_port
from annotation.models import Annotation, Assignment, Item, Project, Standing
from annotation.selectors.counted import answers_as_data, excluded_workers, standings_by_worker
from annotation.spreadsheet import FORMULA_STARTS, safe_cell
from annotation.task_types import get_task_type
from annotation.task_types.base import ExportContext, TaskType

# ``version`` counts the answers the worker gave for the assignment (1 unless they changed it);
# the export holds the latest, given at ``revised_at`` when it was changed. ``shown_order`` is the
# order the worker saw the item's options in, as compact JSON ({part: [option ids]}; the import
# order where none was drawn), empty for a type that shows no options in a drawn order.
# ``seconds`` is the time the server saw (lease start to the answer's arrival), which the rules
# judge; ``client_seconds`` the worker's browser's own count, kept as evidence (empty when none).
# ``adjudicated`` is the item's decided answer (``Adjudication``) as compact JSON, empty when none.
# ``standing`` is the worker's standing in the project when the export is made (active, review,
# blocked, …): a blocked worker's answers are in an export only on request (``include_blocked``).
COMMON_COLUMNS = (
    "project", "item", "assignment", "worker", "worker_source", "worker_external_id", "standing", "status",
    "accepted_at", "submitted_at", "seconds", "client_seconds", "version", "revised_at", "shown_order", "adjudicated",
)
# The response header that tells a client how many blocked workers' answers the download leaves
# out (the download page says it in words; ``include_blocked=1`` adds them).
EXCLUDED_HEADER = "X-Blocked-Workers-Excluded"
FORMATS = {"csv": "text/csv", "json": "application/json", "jsonl": "application/x-ndjson"}
# Annotations read per round trip (PostgreSQL: per FETCH of the server-side cursor).
CHUNK_ROWS = 2000
# Distinct answer texts kept decoded.
DISTINCT_ANSWERS = 1000
# Rows joined into one piece of the stream: one write per piece instead of one per row.
PIECE_ROWS = 500
_FORMULA_FIRST = frozenset(FORMULA_STARTS)


def export_columns(project: Project) -> list[str]:
    return list(COMMON_COLUMNS) + list(get_task_type(project.task_type).export_columns)


def iso_time(text: str | None) -> str:
    """``datetime.isoformat()`` of a timestamp the database gave as text, empty for NULL. The
    shapes both databases give in UTC (SQLite: as Django stores it, ``2016-01-31 16:53:19`` with
    six fraction digits or none; PostgreSQL: ``…19+00``, the fraction without trailing zeros)
    are rewritten as text; anything else goes through ``datetime``."""
    if text is None:
        return ""
    if len(text) >= 19 and text[10] == " ":
        rest = text[19:]
        if rest in ("", "+00"):
            return f"{text[:10]}T{text[11:19]}+00:00"
        fraction, _, zone = rest.partition("+")
        if fraction[:1] == "." and zone in ("", "00") and 2 <= len(fraction) <= 7 and fraction[1:].isdigit():
            return f"{text[:10]}T{text[11:19]}{fraction:0<7}+00:00"
    moment = datetime.fromisoformat(text)
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def _json_reader(model: type[Model], name: str) -> Callable[[str | None], Any]:
    """Decodes a JSON column read as text as the model field does: with its decoder, text that
    is no JSON left as it is."""
    field = model._meta.get_field(name)
    assert isinstance(field, JSONField)
    decoder = field.decoder

    def read(text: str | None) -> Any:
        if text is None:
            return None
        try:
            return json.loads(text, cls=decoder)
        except json.JSONDecodeError:
            return text

    return read


def _as_text(path: str) -> Cast:
    # Read as text: no per-value converters (SQLite parses every timestamp in Python otherwise).
    return Cast(path, output_field=TextField())


def _annotation_values(*, project: Project, counted_only: bool, include_blocked: bool = False) -> Iterator[tuple]:
    """The export's raw values, one tuple per annotation in submission order: item pk, item id,
    payload, gold, assignment, worker id, worker name, source, external id, status, accepted,
    submitted, seconds, client seconds, version, revised, answer, reason, client, shown order (JSON and times as
    text). Only answers that are data (``annotation.selectors.counted``): never a gold or training
    answer, nor an answer to a withdrawn item, with or without ``counted_only``; a blocked
    worker's only with ``include_blocked`` (or when the project keeps them)."""
    qs = Annotation.objects.filter(answers_as_data(project=project, prefix="assignment__",
                                                   include_blocked=include_blocked), assignment__project=project)
    if counted_only:
        qs = qs.filter(assignment__status__in=Assignment.COUNTED_STATUSES)
    username = get_user_model().USERNAME_FIELD
    return (
        qs.order_by("assignment__submitted_at", "pk")
        .values_list(
            "assignment__item_id", "assignment__item__external_id", _as_text("assignment__item__payload"),
            _as_text("assignment__item__gold"), "assignment_id", "assignment__worker_id", f"assignment__worker__{username}",
            "assignment__worker__profile__source", "assignment__worker__profile__external_id", "assignment__status",
            _as_text("assignment__assigned_at"), _as_text("assignment__submitted_at"), "seconds", "client_seconds", "version",
            _as_text("revised_at"), _as_text("answer"), "reason", _as_text("client"),
            _as_text("assignment__shown_order"),
        )
        .iterator(chunk_size=CHUNK_ROWS)
    )


def annotation_rows(*, project: Project, counted_only: bool = True, include_blocked: bool = False) -> Iterator[dict]:
    """One dict per annotation, in submission order. ``counted_only`` leaves out rejected work and
    late answers that did not count; ``include_blocked`` adds the answers of workers blocked in
    the project, which leave the data while the project says so (to audit them)."""
    task = get_task_type(project.task_type)
    export_row = task.export_row
    payload_of, gold_of = _json_reader(Item, "payload"), _json_reader(Item, "gold")
    answer_of, client_of = _json_reader(Annotation, "answer"), _json_reader(Annotation, "client")
    slug = project.slug
    # Decisions are few: read once for the project, not per row.
    adjudicated = quality_port.adjudicated_answers(project=project)
    # Standings too (a worker without one was never judged: active).
    standings = standings_by_worker(project=project)
    # An item's payload is decoded once for the answers to it that come close together: the
    # contexts of this chunk's items and the previous chunk's are kept, no more.
    contexts: dict[int, ExportContext] = {}
    previous: dict[int, ExportContext] = {}
    answers: dict[str, Any] = {}
    # Orders repeat too (a pair has two): each distinct one is written out once.
    orders: dict[Any, str] = {}
    for n, (item_pk, item, payload, gold, assignment, worker_id, worker, source, external_id, status, accepted,
            submitted, seconds, client_seconds, version, revised, answer, reason, client, shown) in enumerate(
                _annotation_values(project=project, counted_only=counted_only, include_blocked=include_blocked),
                start=1):
        if n % CHUNK_ROWS == 0:
            contexts, previous = {}, contexts
        ctx = contexts.get(item_pk)
        if ctx is None:
            ctx = contexts[item_pk] = previous.get(item_pk) or ExportContext(
                item_external_id=item, payload=payload_of(payload), gold=gold_of(gold))
        row = {
            "project": slug, "item": item, "assignment": assignment, "worker": worker,
            # No profile: the left join gives NULL for both.
            "worker_source": source or "", "worker_external_id": external_id or "",
            "standing": standings.get(worker_id, Standing.ACTIVE.value), "status": status,
            "accepted_at": iso_time(accepted), "submitted_at": iso_time(submitted), "seconds": seconds,
            "client_seconds": client_seconds, "version": version, "revised_at": iso_time(revised),
            "shown_order": "", "adjudicated": adjudicated.get(item_pk, ""),
        }
        # Most annotations record no metrics and no refused answers: their client data is not
        # decoded, and they share their item's context.
        if client is not None and ('"metrics"' in client or '"refused"' in client):
            recorded = client_of(client) or {}
            ctx = replace(ctx, metrics=recorded.get("metrics", {}), refused=recorded.get("refused", []))
        # Answers repeat (a label, a choice): each distinct text is decoded once, up to a bound.
        decoded = answers.get(answer)
        if decoded is None:
            if len(answers) >= DISTINCT_ANSWERS:
                answers.clear()
            decoded = answers[answer] = answer_of(answer)
        if task.shown_order_parts:
            row["shown_order"] = _shown_order_text(task, shown, ctx, orders)
        row.update(export_row(ctx, decoded, reason))
        yield row


def _shown_order_text(task: TaskType, stored: str | None, ctx: ExportContext, known: dict[Any, str]) -> str:
    """The stored order as compact JSON; the import order for an answer that has none (given
    before orders were drawn, or collected elsewhere). ``known`` keeps the texts written so far,
    by stored text or by the import order's ids."""
    order: dict[str, list[Any]] | None = None
    if stored is not None and stored != "null":
        key: Any = stored
    else:
        order = task.order_parts(ctx.payload)
        key = tuple((part, tuple(ids)) for part, ids in order.items())
    text = known.get(key)
    if text is None:
        if len(known) >= DISTINCT_ANSWERS:
            known.clear()
        value = json.loads(stored) if order is None and stored is not None else order
        text = known[key] = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text


def _pieces(lines: Iterable[str]) -> Iterator[str]:
    """The lines joined PIECE_ROWS at a time."""
    piece: list[str] = []
    for line in lines:
        piece.append(line)
        if len(piece) == PIECE_ROWS:
            yield "".join(piece)
            piece.clear()
    if piece:
        yield "".join(piece)


def _csv_pieces(rows: Iterable[dict], columns: list[str]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    cells = itemgetter(*columns)
    rows = iter(rows)
    while piece := list(islice(rows, PIECE_ROWS)):
        for row in piece:
            try:
                values = cells(row)
            except KeyError:  # a column the row lacks is written empty
                values = tuple(row.get(column, "") for column in columns)
            # Cells as safe_cell leaves them (text a spreadsheet would run gets a quote), checked
            # one by one only in the few rows where a text starts like a formula.
            if not _FORMULA_FIRST.isdisjoint([value[:1] for value in values if isinstance(value, str)]):
                values = [safe_cell(value) for value in values]
            writer.writerow(values)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    if buffer.tell():  # no rows: the header alone
        yield buffer.getvalue()


def stream(rows: Iterable[dict], *, fmt: str, columns: list[str]) -> Iterator[str]:
    if fmt == "csv":
        yield from _csv_pieces(rows, columns)
    elif fmt == "jsonl":
        yield from _pieces(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    elif fmt == "json":
        yield "["
        yield from _pieces(("," if i else "") + "\n" + json.dumps(row, ensure_ascii=False) for i, row in enumerate(rows))
        yield "\n]\n"
    else:
        raise ValueError(f"unknown export format {fmt!r}; known formats: {', '.join(FORMATS)}")


def export_response(*, project: Project, fmt: str, counted_only: bool = True,
                    include_blocked: bool = False) -> StreamingHttpResponse:
    """A streamed download of the project's raw annotations; ``fmt`` must be one of FORMATS.
    ``EXCLUDED_HEADER`` says how many blocked workers' answers it leaves out (0: none)."""
    rows = annotation_rows(project=project, counted_only=counted_only, include_blocked=include_blocked)
    response = StreamingHttpResponse(
        stream(rows, fmt=fmt, columns=export_columns(project)), content_type=f"{FORMATS[fmt]}; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{project.slug}-annotations.{fmt}"'
    response[EXCLUDED_HEADER] = "0" if include_blocked else str(excluded_workers(project=project))
    return response
