"""Key-point matching (ArgKP; the KPA 2021 shared task, Bar-Haim et al.).

An item is one argument with its topic and stance and every key point of the same topic and
stance; the annotator marks each key point the argument makes, or "None" (exclusive, refused by
the server when mixed with key points). Each (argument, key point) pair is a binary question of
the long frame; the report turns the share of annotators who marked a pair into the shared
task's labels (1 at 60% or more, 0 at 15% or less, ambiguous between: the project's options).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django import forms

from annotation.task_types import limits
from annotation.task_types.base import (
    NO_CONTEXT,
    NONE,
    AnswerContext,
    AnswerData,
    AnswerField,
    AnswerInvalid,
    CleanAnswer,
    CleanItem,
    DemoContext,
    Example,
    ExportContext,
    FieldError,
    FilesImport,
    ImportField,
    Shortcut,
    TaskType,
    choices_problem,
    record_text,
    shorten,
)
from task_types.key_points.corpus import parse_stance

MAX_KEY_POINTS = 50
GUIDELINES = """\
## Which key points does the argument make?

Each item is a short **argument** on a debatable **topic** (for example *"We should abandon the use
of school uniform"*), for or against it, and a list of **key points**: short statements that many
arguments on the same side make.

Mark **every key point that the argument makes**, even in other words, or mark **None** when it
makes none of them. An argument may make several key points. A key point counts when the argument
states or clearly implies it, not when it is only about the same subject.
"""


class KeyPointOptions(forms.Form):
    positive_share = forms.FloatField(
        initial=0.6, min_value=0.0, max_value=1.0, label="Label 1 from this share of annotators",
        help_text="A pair (argument, key point) is labelled 1 (a match) when at least this share of its "
                  "annotators marked it (ArgKP: 0.6).")
    negative_share = forms.FloatField(
        initial=0.15, min_value=0.0, max_value=1.0, label="Label 0 up to this share of annotators",
        help_text="A pair is labelled 0 when at most this share marked it (ArgKP: 0.15); pairs between the "
                  "two shares are ambiguous and left out of labels.csv.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        low, high = data.get("negative_share"), data.get("positive_share")
        if low is not None and high is not None and low >= high:
            raise forms.ValidationError("The share for label 0 must be below the share for label 1.")
        return data


def _key_points(value: Any) -> list[dict[str, str]]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise FieldError("key_points", "must be a JSON list") from None
    if not isinstance(value, list) or not value:
        raise FieldError("key_points", "must be a non-empty list of {\"id\": …, \"text\": …}")
    if len(value) > MAX_KEY_POINTS:
        raise FieldError("key_points", f"at most {MAX_KEY_POINTS} key points, got {len(value)}")
    out: list[dict[str, str]] = []
    for n, kp in enumerate(value, 1):
        if not isinstance(kp, Mapping):
            raise FieldError("key_points", f"key point {n} must be an object with id and text")
        kp_id, text = str(kp.get("id") or "").strip(), str(kp.get("text") or "").strip()
        if not kp_id or not text:
            raise FieldError("key_points", f"key point {n} needs an id and a text")
        for part, value, limit in (("id", kp_id, limits.ID), ("text", text, limits.KEY_POINT)):
            if len(value) > limit:
                raise FieldError("key_points", f"key point {n}: its {part} has {len(value):,} characters; "
                                               f"at most {limit:,} fit")
        if kp_id == NONE:
            raise FieldError("key_points", f"key point {n}: the id {NONE!r} is reserved for None")
        if any(k["id"] == kp_id for k in out):
            raise FieldError("key_points", f"duplicate key point id {kp_id!r}")
        out.append({"id": kp_id, "text": text})
    return out


def _gold(value: Any, known: list[str]) -> dict[str, int] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise FieldError("gold", "must be a JSON object {key point id: 0 or 1}") from None
    if not isinstance(value, Mapping):
        raise FieldError("gold", "must be an object {key point id: 0 or 1}")
    gold = {}
    for kp_id, label in value.items():
        if str(kp_id) not in known:
            raise FieldError("gold", f"unknown key point {kp_id!r}")
        if label not in (0, 1, "0", "1") or isinstance(label, bool):
            raise FieldError("gold", f"the label of {kp_id!r} must be 0 or 1")
        gold[str(kp_id)] = int(label)
    return gold


class KeyPoints(TaskType):
    slug = "key_points"
    name = "Key-point matching"
    description = "Which key points of the argument's topic and stance does the argument make (or none)."
    template = "key_points/item.html"
    default_guidelines = GUIDELINES
    styles = ("key_points/key_points.css",)
    level = "set"
    # The key points are listed in an order drawn per assignment; answers name them by id.
    shown_order_parts = ("key_points",)
    gold_fields = ("key_points",)
    first_shown = "the key point listed first"
    long_rows_use_payload = True
    options_form = KeyPointOptions
    item_tools = (("admin:annotation_project_key_points", "Import key-point data"),
                  ("admin:annotation_project_key_points_track2", "Track 2: a system's key points"))
    urls = "task_types.key_points.urls"
    commands = ("import_key_points", "evaluate_key_points", "track2_build", "track2_score")
    answer_fields = (
        AnswerField("key_points", "choices", "Ids of the key points the argument makes; or [\"none\"] alone."),
    )
    import_fields = (
        ImportField("id", True, "The argument's id (arg_id)."),
        ImportField("topic", True, "The debatable topic, e.g. `We should abandon the use of school uniform`."),
        ImportField("stance", True, "The argument's stance towards the topic: 1 or -1."),
        ImportField("argument", True, "The argument's text."),
        ImportField("key_points", True, "A JSON list of the key points of the same topic and stance: "
                    "`[{\"id\": …, \"text\": …}]`."),
        ImportField("gold", False, "Known labels: a JSON object `{key point id: 0 or 1}` (labels.csv)."),
    )
    export_columns = ("topic", "stance", "key_points", "none", "n_key_points")
    shortcuts = (
        Shortcut("1 … 9", "mark or unmark a key point"),
        Shortcut("0", "None of them"),
        Shortcut("Ctrl+Enter", "submit"),
    )

    # --- items ------------------------------------------------------------------------------

    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        arg_id = record_text(record, "id", required=True, limit=limits.ID)
        topic = record_text(record, "topic", required=True, limit=limits.TOPIC)
        try:
            stance = parse_stance(record.get("stance", ""))
        except ValueError as exc:
            raise FieldError("stance", str(exc)) from None
        argument = record_text(record, "argument", required=True, limit=limits.ARGUMENT)
        key_points = _key_points(record.get("key_points"))
        gold = _gold(record.get("gold"), [kp["id"] for kp in key_points])
        payload = {"id": arg_id, "topic": topic, "stance": stance, "argument": argument, "key_points": key_points}
        return CleanItem(external_id=arg_id, payload=payload, gold=gold)

    def worker_payload(self, payload: Mapping[str, Any], *, options: Mapping[str, Any], variant: str) -> Mapping[str, Any]:
        """Everything but the argument's id, which is the item's id: staff see it, workers need not."""
        return {k: v for k, v in payload.items() if k != "id"}

    def group_of(self, payload: Mapping[str, Any]) -> str | None:
        # The key points shown are those of the topic and stance, so both make the group.
        return f"{payload['topic']}|{payload['stance']}" if payload.get("topic") else None

    def item_columns(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        return {"topic": payload["topic"], "stance": payload["stance"], "argument": payload["argument"],
                "key_points": payload["key_points"], "options": {kp["id"]: kp["text"] for kp in payload["key_points"]}}

    def item_summary(self, payload: Mapping[str, Any], *, length: int = 120) -> str:
        head = f"{'pro' if payload['stance'] == 1 else 'con'}, {len(payload['key_points'])} key points: "
        return head + shorten(payload["argument"], max(length - len(head), 8))

    # --- answers ------------------------------------------------------------------------------

    def clean_answer(self, data: Mapping[str, Any] | AnswerData, *, payload: Mapping[str, Any],
                     context: AnswerContext = NO_CONTEXT) -> CleanAnswer:
        values, errors = AnswerData.wrap(data).read(self.answer_fields)
        known = [kp["id"] for kp in payload.get("key_points", [])]
        chosen = list(dict.fromkeys(values["key_points"]))
        problem = choices_problem(chosen, known, required="Mark the key points the argument makes, or None.",
                                  clash="None cannot go with key points: unmark None or the key points.",
                                  noun="key point")
        if problem and "key_points" not in errors:
            errors["key_points"] = problem
        if errors:
            raise AnswerInvalid(errors)
        picked = [k for k in known if k in chosen]  # in the item's order
        return CleanAnswer(answer={"key_points": picked, "none": NONE in chosen})

    def form_values(self, data: Mapping[str, Any] | AnswerData) -> dict[str, Any]:
        values, _ = AnswerData.wrap(data).read(self.answer_fields)
        chosen = values["key_points"]
        return {"key_points": [k for k in chosen if k != NONE], "none": NONE in chosen}

    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        chosen = set(answer.get("key_points", []))
        return [{"option": kp["id"], "label": int(kp["id"] in chosen)} for kp in payload.get("key_points", [])]

    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict[str, Any]:
        p = ctx.payload
        return {"topic": p["topic"], "stance": p["stance"], "key_points": "|".join(answer.get("key_points", [])),
                "none": bool(answer.get("none")), "n_key_points": len(p.get("key_points", []))}

    def label_display(self, answer: Mapping[str, Any]) -> str:
        if answer.get("none"):
            return "None"
        n = len(answer.get("key_points", []))
        return f"{n} key point{'s' if n != 1 else ''}"

    def example(self) -> Example:
        topic = "We should abandon the use of school uniform"
        kps = [{"id": "kp_4_1", "text": "School uniform reduces bullying"},
               {"id": "kp_4_3", "text": "School uniforms saves costs"}]
        records = [
            {"id": "arg_4_0", "topic": topic, "stance": -1, "key_points": kps, "gold": {"kp_4_1": 1, "kp_4_3": 0},
             "argument": "having a school uniform can reduce bullying as students who have no style or cannot "
                         "afford the latest trends do not stand out."},
            {"id": "arg_4_2", "topic": topic, "stance": -1, "key_points": kps,
             "argument": "it is cheaper for parents to buy school uniforms, which is helpful to parents that are "
                         "struggling financially."},
        ]
        return Example(records=records, answer={"key_points": ["kp_4_1"]}, form=[("key_points", "kp_4_1")],
                       invalid={"key_points": ["kp_4_1", NONE]}, invalid_field="key_points")

    def example_gold(self) -> list[dict[str, Any]]:
        return [{"key_points": ["kp_4_1"]}, {"key_points": ["kp_4_1", "kp_4_3"]}, {"key_points": [NONE]}]

    # --- the type's own pages, commands and demo --------------------------------------------------

    def files_imports(self) -> dict[str, FilesImport]:
        # Imported lazily: services reach the ORM, which the type's module must not at load time.
        from task_types.key_points.services import corpus_files_read
        from task_types.key_points.track2 import track2_files_read

        return {"corpus": FilesImport(files=("arguments", "key_points", "labels"), read=corpus_files_read,
                                      page="admin:annotation_project_key_points"),
                "track2": FilesImport(files=("arguments", "key_points", "predictions"), read=track2_files_read,
                                      page="admin:annotation_project_key_points_track2", keep_existing=True)}

    def admin_urls(self, model_admin: Any) -> list[Any]:
        from task_types.key_points import admin, track2_admin

        return admin.admin_urls(model_admin) + track2_admin.admin_urls(model_admin)

    def demo(self, ctx: DemoContext) -> None:
        from task_types.key_points.demo import demo_project

        demo_project(self, ctx)
