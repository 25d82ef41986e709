"""Writes of items: importing them (all or nothing) and changing how many answers they need."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F

from annotation.importers import (
    ImportFailed,
    ParsedItem,
    Progress,
    RowError,
    detect_format,
    parse_items,
)
from annotation.models import Assignment, Item, Project
from annotation.selectors.media import media_keys_missing
from annotation.services.errors import WorkflowError
from annotation.task_types import get_task_type

Status = Assignment.Status
# Items written per statement batch between two progress reports.
WRITE_CHUNK = 5000


@dataclass(frozen=True)
class ImportResult:
    created: int
    updated: int
    unchanged: int


def _refuse_unfit_items(project: Project, parsed: Sequence[ParsedItem], unit: str) -> None:
    """Items the project's options cannot show, or whose media (e.g. a speech's audio) the
    project does not hold, are refused: no annotator meets an item that cannot play."""
    task = get_task_type(project.task_type)
    options = task.clean_options(project.options)
    errors = [RowError(p.line, name, message, unit=unit) for p in parsed
              for name, message in task.item_problems(p.item.payload, options=options).items()]
    wanted = [(p, key) for p in parsed for key in task.media_keys(p.item.payload)]
    missing = set(media_keys_missing(project=project, keys=[key for _, key in wanted])) if wanted else set()
    errors += [RowError(p.line, "media", f"no media file {key!r} in this project: upload it first", unit=unit)
               for p, key in wanted if key in missing]
    if errors:
        raise ImportFailed(errors[:50], total=len(errors))


def items_import(
    *, project: Project, parsed: Sequence[ParsedItem], on_duplicate: str = "reject", unit: str = "line",
    progress: Progress | None = None, on_written: Callable[[ImportResult], None] | None = None,
) -> ImportResult:
    """Write validated items, all or nothing.

    ``on_duplicate``: ``reject`` refuses the whole file if any id already exists in the project;
    ``update`` replaces payload and gold of existing items, except that an item that already has
    annotations keeps its payload (annotators answered that text) and only its gold may change.
    ``on_written`` runs inside the transaction after the writes (a job stores its outcome there).
    """
    if on_duplicate not in ("reject", "update"):
        raise ImportFailed([RowError(None, "on_duplicate", "must be 'reject' or 'update'")])
    report = progress or (lambda fraction, stage: None)
    _refuse_unfit_items(project, parsed, unit)
    with transaction.atomic():
        # Lock the project row: two imports into one project run one after the other.
        Project.objects.select_for_update().filter(pk=project.pk).first()
        ids = [p.item.external_id for p in parsed]
        existing: dict[str, Item] = {}
        for start in range(0, len(ids), 5000):
            chunk = ids[start : start + 5000]
            existing.update(
                (i.external_id, i)
                for i in Item.objects.filter(project=project, external_id__in=chunk).only(
                    "id", "external_id", "payload", "gold"
                )
            )
        if existing and on_duplicate == "reject":
            clashes = [p for p in parsed if p.item.external_id in existing]
            raise ImportFailed(
                [
                    RowError(p.line, "id", f"item {p.item.external_id!r} already exists in this project (choose 'update' to replace it)", unit=unit)
                    for p in clashes[:50]
                ],
                total=len(clashes),
            )
        annotated = set()
        if existing:
            annotated = set(
                Assignment.objects.filter(item__in=[i.id for i in existing.values()])
                .exclude(status__in=[Status.RETURNED, Status.EXPIRED])
                .values_list("item__external_id", flat=True)
            )
            frozen = [
                p for p in parsed
                if p.item.external_id in annotated and existing[p.item.external_id].payload != p.item.payload
            ]
            if frozen:
                raise ImportFailed(
                    [
                        RowError(p.line, None, f"item {p.item.external_id!r} already has annotations, so its content cannot change", unit=unit)
                        for p in frozen[:50]
                    ],
                    total=len(frozen),
                )
        position = (Item.objects.filter(project=project).order_by("-position").values_list("position", flat=True).first() or 0)
        new, changed, unchanged = [], [], 0
        for p in parsed:
            item = existing.get(p.item.external_id)
            if item is None:
                position += 1
                new.append(Item(project=project, external_id=p.item.external_id, payload=p.item.payload,
                                gold=p.item.gold, position=position, redundancy=project.redundancy))
            elif item.payload == p.item.payload and item.gold == p.item.gold:
                unchanged += 1
            else:
                item.payload, item.gold = p.item.payload, p.item.gold
                changed.append(item)
        total = max(len(new) + len(changed), 1)
        for start in range(0, len(new), WRITE_CHUNK):
            Item.objects.bulk_create(new[start : start + WRITE_CHUNK], batch_size=1000)
            report(min(start + WRITE_CHUNK, len(new)) / total, "writing items")
        Item.objects.bulk_update(changed, ["payload", "gold", "updated_at"], batch_size=1000)
        result = ImportResult(created=len(new), updated=len(changed), unchanged=unchanged)
        if on_written is not None:
            on_written(result)
    return result


def items_import_file(
    *, project: Project, data: bytes, filename: str = "", fmt: str | None = None, on_duplicate: str = "reject"
) -> ImportResult:
    """Parse, validate and import a CSV/TSV/JSON/JSONL upload: every row is checked before any
    is written, and the errors name line (or record) and field."""
    fmt = detect_format(filename, fmt)
    parsed = parse_items(data, fmt=fmt, task_type=get_task_type(project.task_type))
    return items_import(project=project, parsed=parsed, on_duplicate=on_duplicate,
                        unit="record" if fmt == "json" else "line")


def project_set_redundancy(*, project: Project, redundancy: int) -> None:
    """Change N for the project and its items; an item never drops below the slots it has given."""
    if redundancy < 1:
        raise WorkflowError("Redundancy must be at least 1.")
    with transaction.atomic():
        Project.objects.filter(pk=project.pk).update(redundancy=redundancy)
        items = Item.objects.filter(project=project)
        items.filter(n_active__lte=redundancy).update(redundancy=redundancy)
        items.filter(n_active__gt=redundancy).update(redundancy=F("n_active"))
    project.redundancy = redundancy


def items_remove_unused(*, project: Project, keep: Sequence[str]) -> tuple[int, int]:
    """Delete the project's items whose external id is not in ``keep`` and that were never handed
    out (a rebuilt set of questions replaces the old ones); items with assignments stay, since
    their answers must not be lost. Returns (deleted, kept because answered or held)."""
    with transaction.atomic():
        stale = Item.objects.filter(project=project).exclude(external_id__in=list(keep))
        held = stale.filter(assignments__isnull=False).distinct().count()
        deleted = stale.filter(assignments__isnull=True).delete()[1].get(Item._meta.label, 0)
    return deleted, held
