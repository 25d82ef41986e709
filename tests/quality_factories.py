"""Gold questions, training items and quality settings for tests of any task type."""

from typing import Any

from annotation.models import CHECK_ITEM_REDUNDANCY, Item, ItemKind, Project
from annotation.task_types import get_task_type
from quality.models import GoldAnswer, QualityPolicy
from tests.factories import ItemFactory


def check_item(project: Project, *, kind: str = ItemKind.GOLD, answer: dict[str, Any] | None = None,
               accept: list[dict[str, Any]] | None = None, explanation: str = "Because the text says so.",
               **fields: Any) -> Item:
    """A gold question or training item of the project's task type with its known answer (the
    type's worked example's answer on its gold fields unless ``answer`` is given), validated by
    ``TaskType.clean_gold`` as an import would."""
    item = ItemFactory(project=project, kind=kind, redundancy=CHECK_ITEM_REDUNDANCY, **fields)
    task = get_task_type(project.task_type)
    if answer is None:
        example = task.example().answer
        answer = {f: example[f] for f in task.gold_fields}
    clean = task.clean_gold({**answer, "accept": accept or []}, payload=item.payload)
    GoldAnswer.objects.create(item=item, answer=clean.answer, accept=clean.accept, explanation=explanation)
    return item


def quality_policy(project: Project, **fields: Any) -> QualityPolicy:
    policy, _ = QualityPolicy.objects.update_or_create(project=project, defaults=fields)
    return policy
