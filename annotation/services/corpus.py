"""Writes about debate material: the topics and arguments that task types build items from."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction

from annotation.importers import ArgumentRow
from annotation.models import Argument, Topic
from annotation.task_types.base import CorpusArgument


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
