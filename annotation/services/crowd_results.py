"""Import crowd results collected elsewhere (MTurk batch files, released corpora) into a project.

All or nothing, like item import: every row is checked first and the errors name line and
field. Each row becomes a submitted assignment with its annotation, by an account tied to the
worker's id on that platform (the same account a marketplace link would give them).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import IO, Any, cast

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
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
from annotation.models import Annotation, Assignment, Item, Project, WorkerProfile
from annotation.services.marketplace import EXTERNAL_ID_RE, marketplace_username
from annotation.task_types import get_task_type
from annotation.task_types.base import CrowdAnswer, CrowdItemError, FieldError, ImportField
from annotation.value_checks import scrubbed

# Columns every results file has, besides the task type's own.
COMMON_FIELD_DOCS = (
    ImportField("worker", True, "The worker's id on the platform (letters, digits, _ . @ -)."),
    ImportField("accepted_at", False, "When the worker took the item (ISO 8601, `2016-01-31 16:53:19.0 UTC` or MTurk's format)."),
    ImportField("submitted_at", False, "When they submitted it."),
    ImportField("hit", False, "The platform's id of the task (kept with the annotation)."),
    ImportField("assignment", False, "The platform's id of the assignment (kept with the annotation)."),
)
# Rows written per statement batch between two progress reports.
WRITE_CHUNK = 10_000
# MTurk batch result files, mapped onto those names.
MTURK_COLUMNS = {"worker": "WorkerId", "accepted_at": "AcceptTime", "submitted_at": "SubmitTime",
                 "hit": "HITId", "assignment": "AssignmentId"}
# A platform's name becomes part of user names and WorkerProfile.source (40 characters).
SOURCE_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
# Times outside these years are typing errors, and near the ends of the calendar adding a lease
# to them overflows.
YEARS = (1990, 2999)


@dataclass(frozen=True)
class CrowdRow:
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


def parse_column_spec(spec: str) -> dict[str, str]:
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


def parse_crowd_rows(data: bytes | IO[bytes], *, filename: str, task_type, fmt: str | None = None,
                     columns: Mapping[str, str] | None = None, label_map: Mapping[str, str] | None = None,
                     progress: Progress | None = None) -> list[CrowdRow]:
    fmt = detect_format(filename, fmt)
    unit = "record" if fmt == "json" else "line"
    rows: list[CrowdRow] = []
    errors: list[RowError] = []
    seen: dict[tuple[str, str], int] = {}  # (item, worker) -> its line
    n_errors = 0
    for line, raw in read_records(decode(data), fmt, progress=progress):
        try:
            check_record(raw)
            record = _mapped(raw, columns or {}, label_map or {})
            worker = str(record.get("worker") or "").strip()
            if not worker:
                raise FieldError("worker", "must not be empty")
            if not EXTERNAL_ID_RE.match(worker):
                raise FieldError("worker", f"{worker!r} is not a worker id (letters, digits, _ . @ -)")
            times: dict[str, datetime | None] = {}
            for name in ("accepted_at", "submitted_at"):
                try:
                    when = times[name] = parse_time(record.get(name))
                except ValueError as exc:
                    raise FieldError(name, str(exc)) from None
                if when and not YEARS[0] <= when.year <= YEARS[1]:
                    raise FieldError(name, f"must lie between the years {YEARS[0]} and {YEARS[1]}")
            if times["accepted_at"] and times["submitted_at"] and times["submitted_at"] < times["accepted_at"]:
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
        rows.append(CrowdRow(line, worker, times["accepted_at"], times["submitted_at"],
                             str(record.get("hit") or ""), str(record.get("assignment") or ""), answer))
    if errors:
        raise ImportFailed(errors, total=n_errors)
    if not rows:
        raise ImportFailed([RowError(None, None, "the file holds no results")])
    return rows


def crowd_import(*, project: Project, data: bytes, filename: str, fmt: str | None = None,
                 columns: Mapping[str, str] | None = None, label_map: Mapping[str, str] | None = None,
                 source: str = "mturk") -> CrowdImportResult:
    """Import a results file; items the project lacks are built by the task type (pairwise:
    from imported arguments). Refuses the file if a worker already answered one of its items."""
    check_source(source)
    rows = parse_crowd_rows(data, filename=filename, task_type=get_task_type(project.task_type), fmt=fmt,
                            columns=columns, label_map=label_map)
    return crowd_rows_import(project=project, rows=rows, filename=filename, fmt=fmt, source=source)


def check_source(source: str) -> None:
    if not SOURCE_RE.match(source):
        raise ImportFailed([RowError(None, "source", f"{source[:50]!r} is not a platform name "
                                     "(up to 40 lower-case letters, digits, _ . -)")])


def crowd_rows_import(*, project: Project, rows: list[CrowdRow], filename: str, fmt: str | None = None,
                      source: str = "mturk", progress: Progress | None = None,
                      on_written: Callable[[CrowdImportResult], None] | None = None) -> CrowdImportResult:
    """Write parsed results, all or nothing. ``on_written`` runs inside the transaction after
    the writes (a job stores its outcome there, so that both commit or neither does)."""
    check_source(source)
    report = progress or (lambda fraction, stage: None)
    task = get_task_type(project.task_type)
    unit = "record" if detect_format(filename, fmt) == "json" else "line"
    first_line: dict[str, int] = {}  # item id -> the first line that names it
    for row in rows:
        first_line.setdefault(row.answer.item_id, row.line)
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        report(0.0, "building items")
        items = {i.external_id: i for i in Item.objects.filter(project=project, external_id__in=list(first_line))}
        missing = {row.answer.item_id: row.answer.item_source for row in rows if row.answer.item_id not in items}
        try:
            built = task.crowd_items(missing) if missing else {}
            for item_id, clean in built.items():
                try:
                    check_clean_item(clean)
                except FieldError as exc:
                    raise CrowdItemError(item_id, exc.field, exc.message) from None
        except CrowdItemError as exc:
            raise ImportFailed([RowError(first_line.get(exc.item_id), exc.field, exc.message, unit=unit)]) from None
        position = Item.objects.filter(project=project).order_by("-position").values_list("position", flat=True).first() or 0
        new_items = []
        for item_id, clean in built.items():
            position += 1
            new_items.append(Item(project=project, external_id=item_id, payload=clean.payload, gold=clean.gold,
                                  position=position, redundancy=project.redundancy))
        Item.objects.bulk_create(new_items, batch_size=2000)
        items.update({i.external_id: i for i in Item.objects.filter(project=project, external_id__in=list(built))})

        report(0.15, "creating worker accounts")
        workers, workers_created = _workers(sorted({r.worker for r in rows}), source=source)
        clashes = set(
            Assignment.objects.filter(item__in=[i.pk for i in items.values()], worker__in=list(workers.values()))
            .values_list("item_id", "worker_id")
        )
        errors = [
            RowError(r.line, "worker", f"{r.worker!r} already has an assignment on {r.answer.item_id!r} in this project", unit=unit)
            for r in rows if (items[r.answer.item_id].pk, workers[r.worker].pk) in clashes
        ]
        if errors:
            raise ImportFailed(errors[:MAX_REPORTED_ERRORS], total=len(errors))
        _write(project, rows, items, workers, filename, progress=lambda f: report(0.3 + 0.65 * f, "writing annotations"))
        if connection.vendor == "postgresql":
            # A bulk import changes the tables' sizes by orders of magnitude; fresh statistics keep
            # the planner from choosing a nested loop over a million rows before autovacuum runs.
            with connection.cursor() as cursor:
                cursor.execute(f"ANALYZE {Item._meta.db_table}, {Assignment._meta.db_table}, {Annotation._meta.db_table}")
        result = CrowdImportResult(annotations=len(rows), items_created=len(new_items),
                                   items_existing=len(first_line) - len(new_items),
                                   workers_created=workers_created, workers_existing=len(workers) - workers_created)
        if on_written is not None:
            on_written(result)
    return result


def _workers(ids: list[str], *, source: str) -> tuple[dict[str, Any], int]:
    """The accounts of these platform worker ids, created in bulk where missing."""
    User = get_user_model()
    # Found by external_id__in=ids, so no external_id here is None.
    profiles = cast(dict[str, int], dict(
        WorkerProfile.objects.filter(source=source, external_id__in=ids).values_list("external_id", "user_id")
    ))
    new_ids = [w for w in ids if w not in profiles]
    if new_ids:
        # Named as marketplace links name their accounts, so both kinds of arrival read alike;
        # a name someone already holds (an account made by hand) gets a suffix.
        usernames = {w: marketplace_username(source=source, external_id=w) for w in new_ids}
        taken = set(User.objects.filter(username__in=usernames.values()).values_list("username", flat=True))
        for w in new_ids:
            while usernames[w] in taken:
                usernames[w] = f"{marketplace_username(source=source, external_id=w)}+{secrets.token_hex(3)}"
        users = [User(username=usernames[w]) for w in new_ids]
        for u in users:
            u.set_unusable_password()
        User.objects.bulk_create(users, batch_size=2000)
        created = dict(User.objects.filter(username__in=usernames.values()).values_list("username", "pk"))
        WorkerProfile.objects.bulk_create(
            [WorkerProfile(user_id=created[usernames[w]], source=source, external_id=w) for w in new_ids], batch_size=2000
        )
        group = Group.objects.filter(name=WorkerProfile.Role.ANNOTATOR).first()
        if group is not None:
            Through = User.groups.through
            Through.objects.bulk_create([Through(user_id=pk, group_id=group.pk) for pk in created.values()], batch_size=2000)
        profiles.update({w: created[usernames[w]] for w in new_ids})
    by_pk = {u.pk: u for u in User.objects.filter(pk__in=profiles.values())}
    return {w: by_pk[pk] for w, pk in profiles.items()}, len(new_ids)


def _write(project: Project, rows: list[CrowdRow], items: dict[str, Item], workers: dict[str, Any], filename: str,
           *, progress: Callable[[float], None]) -> None:
    now = timezone.now()
    assignments = []
    for r in rows:
        submitted = r.submitted_at or r.accepted_at or now
        accepted = r.accepted_at or submitted
        assignments.append(Assignment(
            item=items[r.answer.item_id], project=project, worker=workers[r.worker],
            status=Assignment.Status.SUBMITTED, assigned_at=accepted,
            expires_at=max(accepted + timedelta(minutes=project.lease_minutes), submitted + timedelta(seconds=1)),
            submitted_at=submitted,
        ))
    # Items get as many slots as they have answers, so the N-per-item check holds for imports
    # that collected more than the project's N.
    per_item: dict[int, int] = {}
    for r in rows:
        pk = items[r.answer.item_id].pk
        per_item[pk] = per_item.get(pk, 0) + 1
    locked = list(Item.objects.filter(pk__in=list(per_item)).order_by("pk").select_for_update().only("pk", "n_active", "redundancy"))
    # Few distinct (slots, redundancy) pairs occur, so one UPDATE per pair and chunk is enough.
    by_values: dict[tuple[int, int], list[int]] = {}
    for item in locked:
        n_active = item.n_active + per_item[item.pk]
        by_values.setdefault((n_active, max(item.redundancy, n_active)), []).append(item.pk)
    for (n_active, redundancy), pks in by_values.items():
        for start in range(0, len(pks), 900):
            Item.objects.filter(pk__in=pks[start : start + 900]).update(n_active=n_active, redundancy=redundancy)
    # Assignments first, then their annotations, in chunks that report progress.
    total = 2 * len(rows)
    for start in range(0, len(rows), WRITE_CHUNK):
        Assignment.objects.bulk_create(assignments[start : start + WRITE_CHUNK], batch_size=2000)
        progress((start + WRITE_CHUNK) / total)
    for start in range(0, len(rows), WRITE_CHUNK):
        Annotation.objects.bulk_create([
            Annotation(
                assignment=a, answer=r.answer.answer, reason=r.answer.reason,
                seconds=(r.submitted_at - r.accepted_at).total_seconds() if r.accepted_at and r.submitted_at else None,
                client=scrubbed({"imported_from": filename, "hit": r.hit, "assignment": r.assignment}),
            )
            for a, r in zip(assignments[start : start + WRITE_CHUNK], rows[start : start + WRITE_CHUNK], strict=True)
        ], batch_size=2000)
        progress((len(rows) + start + WRITE_CHUNK) / total)
