"""Pairwise items from the argument corpus: all pairs of a topic's arguments, A1/A2 order drawn
with a recorded seed (the UKPConvArg1 design)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.importers import ImportFailed, ParsedItem, RowError, check_clean_item
from annotation.models import Item, Project, Topic
from annotation.services import ImportResult, items_import
from annotation.task_types import get_task_type
from annotation.task_types.base import FieldError

PAIRWISE = "pairwise"


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
