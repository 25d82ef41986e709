"""Writes of items: importing them (all or nothing) and changing how many answers they need."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F

from annotation import quality_port
from annotation.importers import (
    ImportFailed,
    ParsedItem,
    Progress,
    RowError,
    detect_format,
    parse_items,
)
from annotation.models import CHECK_ITEM_REDUNDANCY, Assignment, Item, ItemKind, Project
from annotation.selectors.media import media_keys_missing
from annotation.services.audit import import_record
from annotation.services.errors import WorkflowError
from annotation.services.item_kinds import CHECK_KINDS, check_kind_problems
from annotation.services.item_slots import item_slots_refresh
from annotation.task_types import get_task_type

Status = Assignment.Status
# Items written per statement batch between two progress reports.
WRITE_CHUNK = 5000


@dataclass(frozen=True)
class ImportResult:
    created: int
    updated: int
    unchanged: int
    # What the import did not refuse but staff should know: warnings, not errors
    # (``import_warnings``, ``gold_coverage_warnings``).
    warnings: list[str] = field(default_factory=list)


# A word that names an option by its place (A1, A2) in an explanation, in any case.
def _position_words(names: Sequence[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b", re.IGNORECASE)


def import_warnings(*, project: Project, parsed: Sequence[ParsedItem], unit: str = "line") -> list[str]:
    """Warnings about a file that imports as it is: gold explanations that name options by their
    place where the project draws the order (a worker may have seen them the other way round),
    and real items carrying the type's own known-answer column, which makes no gold question."""
    task = get_task_type(project.task_type)
    notes = []
    words = _position_words(task.shown_position_names)
    if words is not None and task.shown_order_parts and not project.keep_import_order:
        naming = [p for p in parsed if p.is_check and p.explanation and words.search(p.explanation)]
        if naming:
            where = ", ".join(f"{unit} {p.line}" for p in naming[:10]) + (" …" if len(naming) > 10 else "")
            notes.append(
                f"{len(naming)} gold or training explanation{'s' if len(naming) != 1 else ''} "
                f"name{'' if len(naming) != 1 else 's'} an option by its place "
                f"({', '.join(task.shown_position_names)}) ({where}). This project draws the order per worker, so a "
                f"worker may have seen the sides the other way round: name them by their content instead.")
    column = task.known_answer_column
    if column:
        plain = [p for p in parsed if not p.is_check and p.item.gold is not None]
        if plain:
            notes.append(
                f"{len(plain)} real item{'s' if len(plain) != 1 else ''} carr{'y' if len(plain) != 1 else 'ies'} "
                f"a `{column}` value: it is kept with the item for the analyses and exports, and "
                f"{'they stay real items' if len(plain) != 1 else 'it stays a real item'}. A gold question needs "
                "item_kind gold and a gold_answer.")
    return notes


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
    actor: User | None = None, source: str = "",
) -> ImportResult:
    """Write validated items, all or nothing.

    ``on_duplicate``: ``reject`` refuses the whole file if any id already exists in the project;
    ``update`` replaces payload and gold of existing items, except that an item that already has
    annotations keeps its payload (annotators answered that text) and only its gold may change.
    Gold questions and training items (``ParsedItem.kind``) take the check items' N and their
    known answer (``GoldAnswer``) in the same transaction; ``update`` changes an item's kind,
    known answer and explanation too, but never makes an item whose answers count as data a
    check item (promotion does: ``quality.services.gold_items``).
    ``on_written`` runs inside the transaction after the writes (a job stores its outcome there).
    Every import is recorded in the audit log in the same transaction, with ``actor`` (None: a
    command or the platform) and ``source`` (the file's name); the result's ``warnings`` are
    warnings about a file that imported (``import_warnings``, ``gold_coverage_warnings``).
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
                    "id", "external_id", "payload", "gold", "kind", "redundancy", "n_active"
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
        known = _known_answers(existing.values())
        withdrawn = {i.external_id for i in existing.values() if i.kind == ItemKind.WITHDRAWN}
        if existing:
            problems = check_kind_problems(project=project, parsed=parsed, existing=existing, unit=unit)
            if problems:
                raise ImportFailed(problems[:50], total=len(problems))
        position = (Item.objects.filter(project=project).order_by("-position").values_list("position", flat=True).first() or 0)
        task = get_task_type(project.task_type)
        new, changed, unchanged = [], [], 0
        for p in parsed:
            item = existing.get(p.item.external_id)
            if item is None:
                position += 1
                new.append(Item(project=project, external_id=p.item.external_id, payload=p.item.payload,
                                gold=p.item.gold, position=position, kind=p.kind, group=task.item_group(p.item.payload),
                                redundancy=CHECK_ITEM_REDUNDANCY if p.is_check else project.redundancy))
                continue
            kind = _kind_after(item.kind, p.kind)
            if (item.payload == p.item.payload and item.gold == p.item.gold and item.kind == kind
                    and known.get(item.pk) == _answer_key(p)):
                unchanged += 1
                continue
            if kind != item.kind:
                # A check item is answered by any number of workers; one made real again (never
                # answered, see check_kind_problems) takes the project's N.
                item.redundancy = CHECK_ITEM_REDUNDANCY if kind in CHECK_KINDS else max(project.redundancy, item.n_active)
            item.payload, item.gold, item.kind = p.item.payload, p.item.gold, kind
            item.group = task.item_group(p.item.payload)
            changed.append(item)
        total = max(len(new) + len(changed), 1)
        for start in range(0, len(new), WRITE_CHUNK):
            Item.objects.bulk_create(new[start : start + WRITE_CHUNK], batch_size=1000)
            report(min(start + WRITE_CHUNK, len(new)) / total, "writing items")
        Item.objects.bulk_update(changed, ["payload", "gold", "kind", "group", "redundancy", "updated_at"],
                                 batch_size=1000)
        stored = {i.external_id: i.pk for i in existing.values()}
        quality_port.gold_answers_import(
            project=project,
            answers=[p for p in parsed if p.gold_answer is not None and p.item.external_id not in withdrawn
                     and known.get(stored.get(p.item.external_id, 0)) != _answer_key(p)],
            now_real=[i.pk for i in changed if i.kind == ItemKind.REAL and i.pk in known])
        result = ImportResult(created=len(new), updated=len(changed), unchanged=unchanged,
                              warnings=[*import_warnings(project=project, parsed=parsed, unit=unit),
                                        *quality_port.gold_coverage_warnings(project=project)])
        kinds = Counter(p.kind for p in parsed)
        import_record(actor=actor, project=project, kind="items", source=source,
                      counts={"created": result.created, "updated": result.updated, "unchanged": result.unchanged,
                              "gold": kinds.get("gold", 0), "training": kinds.get("training", 0),
                              "warnings": len(result.warnings)})
        if on_written is not None:
            on_written(result)
    return result


def _kind_after(stored: str, imported: str) -> str:
    """What an existing item becomes: the file's kind, except that a withdrawn item stays
    withdrawn (check_kind_problems refuses a file that makes it a check item)."""
    return stored if stored == ItemKind.WITHDRAWN else imported


def _known_answers(items) -> dict[int, tuple]:
    """The stored known answers of these items, in the shape ``_answer_key`` compares."""
    return quality_port.known_answers(item_ids=[i.pk for i in items if i.kind in CHECK_KINDS])


def _answer_key(p: ParsedItem) -> tuple | None:
    if p.gold_answer is None:
        return None
    return (p.gold_answer.answer, p.gold_answer.accept, p.explanation)


def items_import_file(
    *, project: Project, data: bytes, filename: str = "", fmt: str | None = None, on_duplicate: str = "reject",
    actor: User | None = None, source: str = "",
) -> ImportResult:
    """Parse, validate and import a CSV/TSV/JSON/JSONL upload: every row is checked before any
    is written, and the errors name line (or record) and field."""
    fmt = detect_format(filename, fmt)
    parsed = parse_items(data, fmt=fmt, task_type=get_task_type(project.task_type))
    return items_import(project=project, parsed=parsed, on_duplicate=on_duplicate,
                        unit="record" if fmt == "json" else "line", actor=actor, source=source or filename)


def project_set_redundancy(*, project: Project, redundancy: int) -> None:
    """Change N for the project and its items; an item never drops below the slots it has given.
    Gold questions and training items keep theirs: any number of workers answer them."""
    if redundancy < 1:
        raise WorkflowError("Redundancy must be at least 1.")
    with transaction.atomic():
        Project.objects.filter(pk=project.pk).update(redundancy=redundancy)
        items = Item.objects.filter(project=project).exclude(kind__in=CHECK_KINDS)
        items.filter(n_active__lte=redundancy).update(redundancy=redundancy)
        items.filter(n_active__gt=redundancy).update(redundancy=F("n_active"))
        project.redundancy = redundancy
        # Items answered by a worker whose answers left the data keep their extra slot.
        item_slots_refresh(project=project)


def items_remove_unused(*, project: Project, keep: Sequence[str]) -> tuple[int, int]:
    """Delete the project's items whose external id is not in ``keep`` and that were never handed
    out (a rebuilt set of questions replaces the old ones); items with assignments stay, since
    their answers must not be lost, and so do gold questions, training items and withdrawn items,
    which no rebuilt set of questions holds. Returns (deleted, kept because answered or held)."""
    with transaction.atomic():
        stale = Item.objects.filter(project=project, kind=ItemKind.REAL).exclude(external_id__in=list(keep))
        held = stale.filter(assignments__isnull=False).distinct().count()
        deleted = stale.filter(assignments__isnull=True).delete()[1].get(Item._meta.label, 0)
    return deleted, held
