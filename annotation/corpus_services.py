"""Writes about debate material: importing arguments and turning them into pairwise items."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from annotation.importers import ArgumentRow, ImportFailed, ParsedItem, RowError, check_clean_item
from annotation.models import Argument, Item, Project, Topic
from annotation.services import ImportResult, items_import
from annotation.task_types import get_task_type
from annotation.task_types.base import CorpusArgument, FieldError
from task_types.pairwise.task import ArgumentRecord, generate_pairs


@dataclass(frozen=True)
class ArgumentsResult:
    topics: int
    created: int
    updated: int


def arguments_import(*, rows: list[ArgumentRow]) -> ArgumentsResult:
    """Create or update topics and arguments by their external ids, all or nothing."""
    with transaction.atomic():
        topics: dict[str, Topic] = {}
        for row in rows:
            if row.topic in topics:
                continue
            topic, _ = Topic.objects.update_or_create(
                external_id=row.topic, defaults={"prompt": row.prompt, "stance": row.stance}
            )
            topics[row.topic] = topic
        existing = {a.external_id: a for a in Argument.objects.filter(external_id__in=[r.arg_id for r in rows])}
        new, changed = [], []
        for row in rows:
            arg = existing.get(row.arg_id)
            if arg is None:
                new.append(Argument(external_id=row.arg_id, topic=topics[row.topic], text=row.text, author=row.author))
            elif (arg.topic_id, arg.text, arg.author) != (topics[row.topic].pk, row.text, row.author):
                arg.topic, arg.text, arg.author = topics[row.topic], row.text, row.author
                changed.append(arg)
        Argument.objects.bulk_create(new, batch_size=1000)
        Argument.objects.bulk_update(changed, ["topic", "text", "author"], batch_size=1000)
    return ArgumentsResult(topics=len(topics), created=len(new), updated=len(changed))


def corpus_arguments(ids: Iterable[str]) -> dict[str, CorpusArgument]:
    """The imported arguments with these ids, for task types that build items from the corpus."""
    wanted = list(set(ids))
    found = {}
    for start in range(0, len(wanted), 5000):
        for a in Argument.objects.filter(external_id__in=wanted[start : start + 5000]).select_related("topic"):
            found[a.external_id] = CorpusArgument(id=a.external_id, text=a.text, topic=a.topic.external_id,
                                                  prompt=a.topic.prompt, stance=a.topic.stance)
    return found


@dataclass(frozen=True)
class PairsResult:
    arguments: int
    pairs: int
    skipped_existing: int
    imported: ImportResult


def pairs_generate(
    *,
    project: Project,
    topic: Topic,
    seed: int,
    min_words: int | None = None,
    max_words: int | None = None,
    sample: int | None = None,
) -> PairsResult:
    """Add all pairs of a topic's arguments to a pairwise project.

    Pairs the project already holds (in either order) are skipped, so generating again with
    another seed never duplicates a pair. The settings are recorded in ``project.options``.
    """
    if project.task_type != "pairwise":
        raise ImportFailed([RowError(None, "project", f"project {project.slug!r} is not a pairwise project")])
    if sample is not None and sample < 2:
        raise ImportFailed([RowError(None, "sample", "must be at least 2")])
    args = [ArgumentRecord(a.external_id, a.text) for a in topic.arguments.order_by("external_id")]
    records = generate_pairs(args, topic=topic.external_id, prompt=topic.prompt, stance=topic.stance,
                             min_words=min_words, max_words=max_words, sample=sample, seed=seed)
    have = {
        frozenset((p["arg1"]["id"], p["arg2"]["id"]))
        for p in Item.objects.filter(project=project, payload__topic=topic.external_id).values_list("payload", flat=True)
    }
    task = get_task_type("pairwise")
    parsed, skipped = [], 0
    for number, record in enumerate(records, start=1):
        if frozenset((record["arg1_id"], record["arg2_id"])) in have:
            skipped += 1
            continue
        try:
            item = task.clean_item(record)
            check_clean_item(item)
            parsed.append(ParsedItem(line=number, item=item))
        except FieldError as exc:
            raise ImportFailed([RowError(number, exc.field, exc.message, unit="pair")]) from None
    used = {a for r in records for a in (r["arg1_id"], r["arg2_id"])}
    with transaction.atomic():
        result = items_import(project=project, parsed=parsed, on_duplicate="reject", unit="pair") if parsed else ImportResult(0, 0, 0)
        log = list(project.options.get("pair_generation", []))
        log.append({
            "topic": topic.external_id, "seed": seed, "min_words": min_words, "max_words": max_words,
            "sample": sample, "arguments": len(used), "pairs": len(records), "created": result.created,
            "at": timezone.now().isoformat(),
        })
        project.options = {**project.options, "pair_generation": log}
        project.save(update_fields=["options"])
    return PairsResult(arguments=len(used), pairs=len(records), skipped_existing=skipped, imported=result)
