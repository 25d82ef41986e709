"""Import crowd results collected elsewhere (MTurk batch files, released corpora) into a project.

All or nothing, like item import: every row is checked first and the errors name line and
field. Each row becomes a submitted assignment with its annotation, by an account tied to the
worker's id on that platform (the same account a marketplace link would give them).
"""

from __future__ import annotations

import gc
import re
import secrets
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import IO, Any, NamedTuple, cast

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, User
from django.db import connection, transaction
from django.utils import timezone

from annotation.importers import (
    ID_MAX_LENGTH,
    MAX_REPORTED_ERRORS,
    ImportFailed,
    Progress,
    RowError,
    check_clean_item,
    check_length,
    check_record,
    decode,
    detect_format,
    parse_time,
    read_records,
)
from annotation.models import Annotation, Assignment, Item, ItemKind, Project, WorkerProfile
from annotation.services.audit import import_record
from annotation.services.bulk_insert import rows_insert
from annotation.services.workers import EXTERNAL_ID_RE, marketplace_username
from annotation.task_types import get_task_type
from annotation.task_types.base import (
    CleanItem,
    CrowdAnswer,
    CrowdItemError,
    FieldError,
    ImportField,
)
from annotation.value_checks import scrubbed

# Columns every results file has, besides the task type's own.
COMMON_FIELD_DOCS = (
    ImportField("worker", True, "The worker's id on the platform (letters, digits, _ . @ -)."),
    ImportField("accepted_at", False, "When the worker took the item (ISO 8601, `2016-01-31 16:53:19.0 UTC` or MTurk's format)."),
    ImportField("submitted_at", False, "When they submitted it."),
    ImportField("hit", False, "The platform's id of the task (kept with the annotation)."),
    ImportField("assignment", False, "The platform's id of the assignment (kept with the annotation)."),
)
# Rows written between two progress reports.
WRITE_CHUNK = 10_000
# MTurk batch result files, mapped onto those names.
MTURK_COLUMNS = {"worker": "WorkerId", "accepted_at": "AcceptTime", "submitted_at": "SubmitTime",
                 "hit": "HITId", "assignment": "AssignmentId"}
# A platform's name becomes part of user names and WorkerProfile.source (40 characters).
SOURCE_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
# Times outside these years are typing errors, and near the ends of the calendar adding a lease
# to them overflows.
YEARS = (1990, 2999)


class CrowdRow(NamedTuple):
    """One parsed results row (a tuple: a file holds tens of thousands of them)."""

    line: int
    worker: str
    accepted_at: datetime | None
    submitted_at: datetime | None
    hit: str
    assignment: str
    answer: CrowdAnswer


@dataclass(frozen=True)
class CrowdImportResult:
    annotations: int
    items_created: int
    items_existing: int
    workers_created: int
    workers_existing: int


def parse_column_spec(*, spec: str) -> dict[str, str]:
    """``field=Column,field=Column`` (e.g. ``label=Answer.choice,pair_id=Input.pair``); the word
    ``mturk`` stands for the worker, time, HIT and assignment columns of MTurk batch results."""
    mapping = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        if part == "mturk":
            mapping.update(MTURK_COLUMNS)
            continue
        ours, sep, theirs = part.partition("=")
        if not sep or not ours.strip() or not theirs.strip():
            raise ImportFailed([RowError(None, "columns", f"{part!r} is not field=Column")])
        mapping[ours.strip()] = theirs.strip()
    return mapping


def _mapped(record: Mapping[str, Any], columns: Mapping[str, str], label_map: Mapping[str, str]) -> dict:
    out = dict(record)
    for ours, theirs in columns.items():
        out[ours] = record.get(theirs)
    if label_map and out.get("label") is not None:
        out["label"] = label_map.get(str(out["label"]).strip(), out["label"])
    return out


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Tens of thousands of rows, none in a reference cycle, stay alive from parsing to writing:
    the cyclic collector would only walk them again and again while more are made (a fifth of
    the import of UKPConvArg1's labels)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def parse_crowd_rows(*, data: bytes | IO[bytes], filename: str, task_type, fmt: str | None = None,
                     columns: Mapping[str, str] | None = None, label_map: Mapping[str, str] | None = None,
                     progress: Progress | None = None) -> list[CrowdRow]:
    with _no_cycle_collection():
        return _parse_crowd_rows(data, filename=filename, task_type=task_type, fmt=fmt, columns=columns,
                                 label_map=label_map, progress=progress)


def _parse_crowd_rows(data: bytes | IO[bytes], *, filename: str, task_type, fmt: str | None,
                      columns: Mapping[str, str] | None, label_map: Mapping[str, str] | None,
                      progress: Progress | None) -> list[CrowdRow]:
    fmt = detect_format(filename, fmt)
    unit = "record" if fmt == "json" else "line"
    rows: list[CrowdRow] = []
    errors: list[RowError] = []
    seen: dict[tuple[str, str], int] = {}  # (item, worker) -> its line
    n_errors = 0
    for line, raw in read_records(decode(data), fmt, progress=progress):
        try:
            check_record(raw)
            record = _mapped(raw, columns or {}, label_map or {}) if columns or label_map else raw
            worker = str(record.get("worker") or "").strip()
            if not worker:
                raise FieldError("worker", "must not be empty")
            if not EXTERNAL_ID_RE.match(worker):
                raise FieldError("worker", f"{worker!r} is not a worker id (letters, digits, _ . @ -)")
            accepted, submitted = _time(record, "accepted_at"), _time(record, "submitted_at")
            if accepted and submitted and submitted < accepted:
                raise FieldError("submitted_at", "is before accepted_at")
            answer = task_type.clean_crowd_record(record)
            check_length("pair_id" if "pair_id" in record else "id", answer.item_id, ID_MAX_LENGTH)
            key = (answer.item_id, worker)
            if key in seen:
                raise FieldError("worker", f"{worker!r} already answered {answer.item_id!r} on {unit} {seen[key]}")
            seen[key] = line
        except FieldError as exc:
            n_errors += 1
            if len(errors) < MAX_REPORTED_ERRORS:
                errors.append(RowError(line, exc.field, exc.message, unit=unit))
            continue
        rows.append(CrowdRow(line, worker, accepted, submitted, str(record.get("hit") or ""),
                             str(record.get("assignment") or ""), answer))
    if errors:
        raise ImportFailed(errors, total=n_errors)
    if not rows:
        raise ImportFailed([RowError(None, None, "the file holds no results")])
    return rows


def _time(record: Mapping[str, Any], name: str) -> datetime | None:
    try:
        when = parse_time(record.get(name))
    except ValueError as exc:
        raise FieldError(name, str(exc)) from None
    if when and not YEARS[0] <= when.year <= YEARS[1]:
        raise FieldError(name, f"must lie between the years {YEARS[0]} and {YEARS[1]}")
    return when


def crowd_import(*, project: Project, data: bytes, filename: str, fmt: str | None = None,
                 columns: Mapping[str, str] | None = None, label_map: Mapping[str, str] | None = None,
                 source: str = "mturk", progress: Progress | None = None) -> CrowdImportResult:
    """Import a results file; items the project lacks are built by the task type (pairwise:
    from imported arguments). Refuses the file if a worker already answered one of its items.
    ``progress`` hears how far reading (up to 40%) and writing got."""
    check_source(source=source)
    report = progress or (lambda fraction, stage: None)
    with _no_cycle_collection():
        rows = parse_crowd_rows(data=data, filename=filename, task_type=get_task_type(project.task_type), fmt=fmt,
                                columns=columns, label_map=label_map,
                                progress=lambda fraction, stage: report(0.4 * fraction, stage))
        return crowd_rows_import(project=project, rows=rows, filename=filename, fmt=fmt, source=source,
                                 progress=lambda fraction, stage: report(0.4 + 0.6 * fraction, stage))


def check_source(*, source: str) -> None:
    if not SOURCE_RE.match(source):
        raise ImportFailed([RowError(None, "source", f"{source[:50]!r} is not a platform name "
                                     "(up to 40 lower-case letters, digits, _ . -)")])


def crowd_rows_import(*, project: Project, rows: list[CrowdRow], filename: str, fmt: str | None = None,
                      source: str = "mturk", progress: Progress | None = None,
                      on_written: Callable[[CrowdImportResult], None] | None = None,
                      actor: User | None = None) -> CrowdImportResult:
    """Write parsed results, all or nothing. ``on_written`` runs inside the transaction after
    the writes (a job stores its outcome there, so that both commit or neither does). The import
    (with the worker accounts it made) goes to the audit log in the same transaction."""
    with _no_cycle_collection():
        return _crowd_rows_import(project=project, rows=rows, filename=filename, fmt=fmt, source=source,
                                  progress=progress, on_written=on_written, actor=actor)


def _crowd_rows_import(*, project: Project, rows: list[CrowdRow], filename: str, fmt: str | None, source: str,
                       progress: Progress | None,
                       on_written: Callable[[CrowdImportResult], None] | None,
                       actor: User | None = None) -> CrowdImportResult:
    check_source(source=source)
    report = progress or (lambda fraction, stage: None)
    task = get_task_type(project.task_type)
    unit = "record" if detect_format(filename, fmt) == "json" else "line"
    first_line: dict[str, int] = {}  # item id -> the first line that names it
    for row in rows:
        first_line.setdefault(row.answer.item_id, row.line)
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        report(0.0, f"building items: {len(first_line):,} named in the file")
        project_items = Item.objects.filter(project=project)
        existing = dict(project_items.filter(external_id__in=list(first_line)).values_list("external_id", "pk")
                        if project_items.exists() else {})
        # Crowd results are data: they go to real items, never to a gold question, a training item
        # or a withdrawn item, whose answers are no annotations (few: read through the kind index).
        checks = dict(project_items.filter(external_id__in=list(existing)).exclude(kind=ItemKind.REAL)
                      .values_list("external_id", "kind")) if existing else {}
        if checks:
            refused = [RowError(first_line[i], "item", f"item {i!r} is a {kind} item: crowd results go to real items only",
                                unit=unit) for i, kind in checks.items()]
            raise ImportFailed(refused[:MAX_REPORTED_ERRORS], total=len(refused))
        missing = {row.answer.item_id: row.answer.item_source for row in rows if row.answer.item_id not in existing}
        try:
            built = task.crowd_items(missing) if missing else {}
            for item_id, clean in built.items():
                try:
                    check_clean_item(clean)
                except FieldError as exc:
                    raise CrowdItemError(item_id, exc.field, exc.message) from None
        except CrowdItemError as exc:
            raise ImportFailed([RowError(first_line.get(exc.item_id), exc.field, exc.message, unit=unit)]) from None
        answers = Counter(row.answer.item_id for row in rows)
        items = {**existing, **_items_create(project, built, answers)}

        report(0.15, f"creating worker accounts: {len({r.worker for r in rows}):,} workers in the file")
        known, new = _workers(sorted({r.worker for r in rows}), source=source)
        workers = {**known, **new}
        # New items and new accounts hold no assignment yet: only the known pairs can clash.
        clashes = set(
            Assignment.objects.filter(item__in=list(existing.values()), worker__in=list(known.values()))
            .values_list("item_id", "worker_id")
        ) if existing and known else set()
        errors = [
            RowError(r.line, "worker", f"{r.worker!r} already has an assignment on {r.answer.item_id!r} in this project", unit=unit)
            for r in rows if (items[r.answer.item_id], workers[r.worker]) in clashes
        ]
        if errors:
            raise ImportFailed(errors[:MAX_REPORTED_ERRORS], total=len(errors))
        _write(project, rows, items, workers, filename, existing=existing,
               progress=lambda done: report(0.3 + 0.65 * done / len(rows), f"writing annotations: {done:,} of {len(rows):,}"))
        if connection.vendor == "postgresql":
            # A bulk import changes the tables' sizes by orders of magnitude; fresh statistics keep
            # the planner from choosing a nested loop over a million rows before autovacuum runs.
            with connection.cursor() as cursor:
                cursor.execute(f"ANALYZE {Item._meta.db_table}, {Assignment._meta.db_table}, {Annotation._meta.db_table}")
        result = CrowdImportResult(annotations=len(rows), items_created=len(built),
                                   items_existing=len(existing), workers_created=len(new),
                                   workers_existing=len(known))
        import_record(actor=actor, project=project, kind="crowd", source=filename,
                      counts={**asdict(result), "platform": source})
        if on_written is not None:
            on_written(result)
    return result


def _items_create(project: Project, built: Mapping[str, CleanItem], answers: Counter[str]) -> dict[str, int]:
    """Store the items built for a results file after the project's last one, each holding as
    many slots as it has answers (N grows where more were collected); their pks by id."""
    if not built:
        return {}
    position = Item.objects.filter(project=project).order_by("-position").values_list("position", flat=True).first() or 0
    rows_insert(
        model=Item, columns=("project_id", "external_id", "payload", "gold", "position", "redundancy", "n_active"),
        rows=((project.pk, item_id, clean.payload, clean.gold, position + n, max(project.redundancy, answers[item_id]),
               answers[item_id]) for n, (item_id, clean) in enumerate(built.items(), start=1)),
    )
    # Read back by position: they come after the last one.
    stored = Item.objects.filter(project=project, position__gt=position).values_list("external_id", "pk")
    return {item_id: pk for item_id, pk in stored if item_id in built}


def _workers(ids: list[str], *, source: str) -> tuple[dict[str, int], dict[str, int]]:
    """The user pks of these platform worker ids: those with an account, and those given one now
    (in bulk)."""
    User = get_user_model()
    # Found by external_id__in=ids, so no external_id here is None.
    known = cast(dict[str, int], dict(
        WorkerProfile.objects.filter(source=source, external_id__in=ids).values_list("external_id", "user_id")
    ))
    new_ids = [w for w in ids if w not in known]
    if not new_ids:
        return known, {}
    # Named as marketplace links name their accounts, so both kinds of arrival read alike;
    # a name someone already holds (an account made by hand) gets a suffix.
    usernames = {w: marketplace_username(source=source, external_id=w) for w in new_ids}
    taken = set(User.objects.filter(username__in=usernames.values()).values_list("username", flat=True))
    for w in new_ids:
        while usernames[w] in taken:
            usernames[w] = f"{marketplace_username(source=source, external_id=w)}+{secrets.token_hex(3)}"
    # Unusable passwords, as set_unusable_password makes them: these workers arrive by link.
    rows_insert(model=User, columns=("username", "password"),
                rows=((usernames[w], make_password(None)) for w in new_ids))
    created = dict(User.objects.filter(username__in=usernames.values()).values_list("username", "pk"))
    rows_insert(model=WorkerProfile, columns=("user_id", "source", "external_id"),
                rows=((created[usernames[w]], source, w) for w in new_ids))
    group = Group.objects.filter(name=WorkerProfile.Role.ANNOTATOR).first()
    if group is not None:
        rows_insert(model=User.groups.through, columns=("user_id", "group_id"),
                    rows=((pk, group.pk) for pk in created.values()))
    return known, {w: created[usernames[w]] for w in new_ids}


def _write(project: Project, rows: list[CrowdRow], items: dict[str, int], workers: dict[str, int], filename: str,
           *, existing: Mapping[str, int], progress: Callable[[int], None]) -> None:
    now = timezone.now()
    lease, second = timedelta(minutes=project.lease_minutes), timedelta(seconds=1)
    # Items that were there get as many more slots as they have answers, so the N-per-item
    # check holds for imports that collected more than the project's N.
    per_item = Counter(existing[r.answer.item_id] for r in rows if r.answer.item_id in existing)
    locked = (Item.objects.filter(pk__in=list(per_item)).order_by("pk").select_for_update()
              .values_list("pk", "n_active", "redundancy"))
    # Few distinct (slots, redundancy) pairs occur, so one UPDATE per pair and chunk is enough.
    by_values: dict[tuple[int, int], list[int]] = {}
    for pk, n_active, redundancy in locked:
        n_active += per_item[pk]
        by_values.setdefault((n_active, max(redundancy, n_active)), []).append(pk)
    for (n_active, redundancy), pks in by_values.items():
        for start in range(0, len(pks), 900):
            Item.objects.filter(pk__in=pks[start : start + 900]).update(n_active=n_active, redundancy=redundancy)
    imported_from = scrubbed(filename)
    last = Assignment.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    # A chunk's assignments, then their annotations, whose assignment ids are read back by item
    # and worker (one assignment per pair).
    status = Assignment.Status.SUBMITTED
    for start in range(0, len(rows), WRITE_CHUNK):
        chunk = rows[start : start + WRITE_CHUNK]
        assignments = []
        for r in chunk:
            submitted = r.submitted_at or r.accepted_at or now
            accepted = r.accepted_at or submitted
            assignments.append((items[r.answer.item_id], project.pk, workers[r.worker], status, accepted,
                                max(accepted + lease, submitted + second), submitted))
        rows_insert(model=Assignment, rows=assignments, columns=(
            "item_id", "project_id", "worker_id", "status", "assigned_at", "expires_at", "submitted_at"))
        ids = {}
        for pk, item, worker in (Assignment.objects.filter(project=project, pk__gt=last).order_by()
                                 .values_list("pk", "item_id", "worker_id")):
            ids[item, worker] = pk
            last = max(last, pk)
        rows_insert(model=Annotation, columns=("assignment_id", "answer", "reason", "seconds", "client"), rows=(
            (ids[a[0], a[2]], r.answer.answer, r.answer.reason,
             (r.submitted_at - r.accepted_at).total_seconds() if r.accepted_at and r.submitted_at else None,
             {"imported_from": imported_from, "hit": scrubbed(r.hit), "assignment": scrubbed(r.assignment)})
            for a, r in zip(assignments, chunk, strict=True)
        ))
        progress(start + len(chunk))
