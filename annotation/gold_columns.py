"""The generic columns of an item file that make an item a gold question or a training item,
whatever its task type and format; read before the task type sees the record. No database
access here (``annotation.importers`` reads files with it, ``annotation.services.items`` writes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from annotation.task_types.base import CleanItem, FieldError, ImportField, TaskType
from annotation.task_types.gold import CleanGold

# The generic columns any item file may hold, whatever its task type: what the item is served as
# (``annotation.models.kinds.ItemKind``: empty is a real item), the known answer of a gold
# question or training item (a JSON object of the type's gold fields; JSON text in CSV/TSV) and
# the explanation shown with the feedback.
CHECK_COLUMNS = ("item_kind", "gold_answer", "gold_explanation")
IMPORT_KINDS = ("real", "gold", "training")
EXPLANATION_MAX_LENGTH = 5000
# The columns as the import page lists them beside the task type's own.
CHECK_FIELD_DOCS = (
    ImportField("item_kind", False, "real (or empty), gold (a gold question, mixed in among real items) or "
                "training (served in training rounds); gold and training need gold_answer. This column, not a "
                "task type's own known-answer column, makes a gold question."),
    ImportField("gold_answer", False, "For gold and training items: the known answer as a JSON object of the "
                "task type's scored fields, optionally with \"accept\": [other answers also right]."),
    ImportField("gold_explanation", False, "For gold and training items: text shown to the worker with the feedback."),
)


def split_check_columns(record: Mapping[str, Any]) -> tuple[Mapping[str, Any], dict[str, Any]]:
    """The record without the generic check columns (what the task type reads), and those columns."""
    if not any(name in record for name in CHECK_COLUMNS):
        return record, {}
    rest = {k: v for k, v in record.items() if k not in CHECK_COLUMNS}
    return rest, {k: record[k] for k in CHECK_COLUMNS if k in record}


def clean_check_columns(columns: Mapping[str, Any], *, item: CleanItem,
                        task_type: TaskType) -> tuple[str, CleanGold | None, str]:
    """(kind, known answer, explanation) of one record's check columns; raises FieldError naming
    the column (``gold_answer.label`` for a field of the answer)."""
    raw_kind = columns.get("item_kind")
    if raw_kind is not None and not isinstance(raw_kind, str):
        raise FieldError("item_kind", f"must be one of {', '.join(IMPORT_KINDS)} (empty: real)")
    kind = (raw_kind or "").strip().lower() or "real"
    if kind not in IMPORT_KINDS:
        raise FieldError("item_kind", f"{raw_kind!r} is not one of {', '.join(IMPORT_KINDS)} (empty: real)")
    answer = columns.get("gold_answer")
    if isinstance(answer, str):
        if answer.strip():
            try:
                answer = json.loads(answer)
            except (ValueError, RecursionError) as exc:
                raise FieldError("gold_answer", f"is not valid JSON: {exc}") from None
        else:
            answer = None
    explanation = columns.get("gold_explanation")
    if explanation is not None and not isinstance(explanation, str):
        raise FieldError("gold_explanation", f"must be text, got {type(explanation).__name__}")
    explanation = (explanation or "").strip()
    if len(explanation) > EXPLANATION_MAX_LENGTH:
        raise FieldError("gold_explanation", f"is {len(explanation)} characters long; at most {EXPLANATION_MAX_LENGTH} fit")
    if kind == "real":
        if answer is not None:
            raise FieldError("gold_answer", "a real item takes no gold answer: set item_kind to gold or training")
        if explanation:
            raise FieldError("gold_explanation", "a real item takes no explanation: set item_kind to gold or training")
        return kind, None, ""
    if answer is None:
        raise FieldError("gold_answer", f"is required for a {kind} item")
    return kind, task_type.clean_gold(answer, payload=item.payload), explanation
