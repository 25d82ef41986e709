"""The argument corpus and the pairwise items made from it: topics and arguments imported by
their external ids, all pairs of a topic's arguments with the A1/A2 order drawn from a recorded
seed (the UKPConvArg1 design), and the arguments a crowd-results file names."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone

from annotation.importers import ImportFailed, ParsedItem, RowError, check_clean_item
from annotation.models import Item, Project
from annotation.services import ImportResult, items_import
from annotation.services.audit import import_record
from annotation.task_types import get_task_type
from annotation.task_types.base import FieldError
from task_types.pairwise.arguments_file import ArgumentRow
from task_types.pairwise.models import Argument, Topic

PAIRWISE = "pairwise"


@dataclass(frozen=True)
class ArgumentsResult:
    topics: int
    created: int
    updated: int


def arguments_import(*, rows: list[ArgumentRow], actor: User | None = None, source: str = "") -> ArgumentsResult:
    """Create or update topics and arguments by their external ids, all or nothing; recorded in
    the audit log (the corpus is the site's, so the entry names no project)."""
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
        result = ArgumentsResult(topics=len(topics), created=len(new), updated=len(changed))
        import_record(actor=actor, project=None, kind="arguments", source=source, counts=asdict(result))
    return result


@dataclass(frozen=True)
class CorpusArgument:
    """An imported argument with its topic, as crowd results refer to it."""

    id: str
    text: str
    topic: str
    prompt: str
    stance: str


def corpus_arguments(*, ids: Iterable[str]) -> dict[str, CorpusArgument]:
    """The imported arguments with these ids; ids the corpus does not know are left out."""
    wanted = list(set(ids))
    found = {}
    for start in range(0, len(wanted), 5000):
        for a in Argument.objects.filter(external_id__in=wanted[start : start + 5000]).select_related("topic"):
            found[a.external_id] = CorpusArgument(id=a.external_id, text=a.text, topic=a.topic.external_id,
                                                  prompt=a.topic.prompt, stance=a.topic.stance)
    return found


@dataclass(frozen=True)
class ArgumentRecord:
    """An argument as pair generation needs it."""

    id: str
    text: str


def generate_pairs(
    arguments: Sequence[ArgumentRecord],
    *,
    topic: str,
    prompt: str,
    stance: str,
    min_words: int | None = None,
    max_words: int | None = None,
    sample: int | None = None,
    seed: int,
) -> list[dict[str, Any]]:
    """All n(n-1)/2 pairs of a topic's arguments as import records.

    Arguments outside [min_words, max_words] are left out first; ``sample`` then keeps that many
    arguments drawn at random. Which argument is shown as A1 is decided per pair by a generator
    seeded with ``seed``, so the same seed and arguments give the same items.
    """
    rng = random.Random(seed)
    kept = sorted(arguments, key=lambda a: a.id)
    if min_words is not None:
        kept = [a for a in kept if len(a.text.split()) >= min_words]
    if max_words is not None:
        kept = [a for a in kept if len(a.text.split()) <= max_words]
    if sample is not None and sample < len(kept):
        kept = sorted(rng.sample(kept, sample), key=lambda a: a.id)
    records = []
    for i, first in enumerate(kept):
        for second in kept[i + 1 :]:
            a1, a2 = (first, second) if rng.random() < 0.5 else (second, first)
            records.append(
                {
                    "id": f"{a1.id}_{a2.id}",
                    "topic": topic,
                    "prompt": prompt,
                    "stance": stance,
                    "arg1_id": a1.id,
                    "arg1_text": a1.text,
                    "arg2_id": a2.id,
                    "arg2_text": a2.text,
                }
            )
    return records


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
    actor: User | AnonymousUser | None = None,
    source: str = "",
) -> PairsResult:
    """Add all pairs of a topic's arguments to a pairwise project.

    Pairs the project already holds (in either order) are skipped, so generating again with
    another seed never duplicates a pair. The settings are recorded in ``project.options``.
    """
    if project.task_type != PAIRWISE:
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
    task = get_task_type(PAIRWISE)
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
        who = actor if isinstance(actor, User) else None
        result = (items_import(project=project, parsed=parsed, on_duplicate="reject", unit="pair", actor=who,
                               source=source or f"pairs of topic {topic.external_id} (seed {seed})")
                  if parsed else ImportResult(0, 0, 0))
        log = list(project.options.get("pair_generation", []))
        log.append({
            "topic": topic.external_id, "seed": seed, "min_words": min_words, "max_words": max_words,
            "sample": sample, "arguments": len(used), "pairs": len(records), "created": result.created,
            "at": timezone.now().isoformat(),
        })
        project.options = {**project.options, "pair_generation": log}
        project.save(update_fields=["options"])
    return PairsResult(arguments=len(used), pairs=len(records), skipped_existing=skipped, imported=result)
