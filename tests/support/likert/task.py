"""How much does the annotator agree with a statement, on a 1–5 scale."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.task_types.base import (
    NO_CONTEXT,
    AnswerContext,
    AnswerData,
    AnswerField,
    AnswerInvalid,
    CleanAnswer,
    CleanItem,
    Example,
    ExportContext,
    ImportField,
    TaskType,
    record_text,
)

SCALE = (("1", "Strongly disagree"), ("2", "Disagree"), ("3", "Neither"), ("4", "Agree"), ("5", "Strongly agree"))


class LikertRating(TaskType):
    slug = "likert"
    name = "Likert rating"
    description = "How much the annotator agrees with a statement, from 1 to 5."
    template = "likert/item.html"
    urls = "tests.support.likert.urls"
    commands = ("likert_counts",)
    import_fields = (ImportField("id", True, "External id."), ImportField("statement", True, "The statement."))
    export_columns = ("statement", "rating")
    # The answer's key is "rating": the frame builder makes it the frame's label.
    answer_columns = ("rating",)
    answer_fields = (AnswerField("rating", "choice", "1 (strongly disagree) to 5 (strongly agree)."),)
    level = "ordinal"
    categories = SCALE

    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        return CleanItem(external_id=record_text(record, "id"), payload={"statement": record_text(record, "statement")})

    def clean_answer(self, data: Mapping[str, Any] | AnswerData, *, payload: Mapping[str, Any],
                     context: AnswerContext = NO_CONTEXT) -> CleanAnswer:
        values, errors = AnswerData.wrap(data).read(self.answer_fields)
        if values["rating"] not in dict(SCALE):
            errors.setdefault("rating", "Choose a rating from 1 to 5.")
        if errors:
            raise AnswerInvalid(errors)
        return CleanAnswer(answer={"rating": values["rating"]})

    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"label": answer["rating"]}]

    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict[str, Any]:
        return {"statement": ctx.payload["statement"], "rating": answer["rating"]}

    def example(self) -> Example:
        records = [{"id": "s1", "statement": "School uniforms should be compulsory."},
                   {"id": "s2", "statement": "Homework should be banned."}]
        return Example(records=records, answer={"rating": "4"}, form=[("rating", "4")],
                       invalid={"rating": "7"}, invalid_field="rating")
