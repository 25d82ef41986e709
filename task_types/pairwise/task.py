"""Pairwise convincingness (Habernal & Gurevych, ACL 2016).

An item shows two arguments with the same topic and stance; the annotator says which one is more
convincing (or that they are equally convincing), gives a reason of 30–140 characters, and
states their own standpoint on the topic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.task_types import limits
from annotation.task_types.base import (
    NO_CONTEXT,
    AnswerContext,
    AnswerData,
    AnswerField,
    AnswerInvalid,
    CleanAnswer,
    CleanItem,
    CrowdAnswer,
    CrowdItemError,
    DemoContext,
    Example,
    ExportContext,
    FieldError,
    ImportField,
    Shortcut,
    TaskType,
    shorten,
)

LABELS = {
    "a1": "A1 is more convincing",
    "a2": "A1 is less convincing (A2 is more convincing)",
    "equal": "A1 and A2 are equally convincing",
}
STANDPOINTS = {
    "none": "I have no standpoint on this topic",
    "same": "I agree with this stance",
    "opposite": "I hold the opposite stance",
}
REASON_MIN = 30
REASON_MAX = 140

GUIDELINES = """\
## Which argument is more convincing?

Each item shows a debate topic, a stance, and **two arguments (A1 and A2) that both support that
stance**. Read both and decide which one is more convincing:

- **A1 is more convincing**, **A1 is less convincing** (A2 is more convincing), or
- **equally convincing**, only when you really cannot prefer either.

Then explain your choice in one sentence of 30 to 140 characters, for example *"A2 gives a
concrete example, A1 only repeats the claim"*.

Please keep in mind:

- **Do not judge whether an argument is true.** Judge how well it convinces a reader.
- **Be objective.** Your own view on the topic must not decide the answer; we ask for it
  separately.
- **Do not argue.** The reason says why one argument is more convincing, not what you think of
  the topic.
- Arguments can contain typos or odd formatting; judge the reasoning, not the spelling.
"""


# How long each text may be (annotation.task_types.limits); ids (the topic too) take limits.ID.
FIELD_LIMITS = {"prompt": limits.TOPIC, "stance": limits.STANCE, "text": limits.ARGUMENT,
                "arg1_text": limits.ARGUMENT, "arg2_text": limits.ARGUMENT}


def _text(record: Mapping[str, Any], field: str, *, required: bool = True) -> str:
    value = record.get(field)
    if value is None:
        if required:
            raise FieldError(field, "is missing")
        return ""
    if not isinstance(value, str | int):
        raise FieldError(field, f"must be text, got {type(value).__name__}")
    text = str(value).strip()
    if required and not text:
        raise FieldError(field, "must not be empty")
    limit = FIELD_LIMITS.get(field, limits.ID)
    if len(text) > limit:
        raise FieldError(field, f"is {len(text):,} characters long; at most {limit:,} fit")
    return text


def _argument(record: Mapping[str, Any], side: str) -> tuple[str, str]:
    """Accepts flat columns (``arg1_id``, ``arg1_text``) or a nested object (``arg1: {id, text}``)."""
    nested = record.get(side)
    if isinstance(nested, Mapping):
        arg_id = _text(nested, "id")
        text = _text(nested, "text")
        return arg_id, text
    if nested is not None and f"{side}_id" not in record:
        # UKPConvArg-style files name the argument id in a plain "arg1" column.
        return _text(record, side), _text(record, f"{side}_text")
    return _text(record, f"{side}_id"), _text(record, f"{side}_text")


class PairwiseConvincingness(TaskType):
    slug = "pairwise"
    name = "Pairwise convincingness"
    description = "Which of two arguments on the same stance is more convincing, and why."
    template = "pairwise/item.html"
    styles = ("pairwise/pairwise.css",)
    default_guidelines = GUIDELINES
    import_fields = (
        ImportField("id", False, "External id of the pair; default `<arg1_id>_<arg2_id>`."),
        ImportField("topic", True, "Topic id (prompt + stance), e.g. `ban-plastic-water-bottles_yes`."),
        ImportField("prompt", True, "The debate prompt shown above the arguments."),
        ImportField("stance", True, "The stance both arguments take."),
        ImportField("arg1_id", True, "Id of the argument shown as A1."),
        ImportField("arg1_text", True, "Text of A1."),
        ImportField("arg2_id", True, "Id of the argument shown as A2."),
        ImportField("arg2_text", True, "Text of A2."),
        ImportField("gold", False, "A known answer (a1, a2 or equal) kept with the item for the analyses and "
                    "exports; it does not make a gold question: item_kind gold with gold_answer does."),
    )
    shortcuts = (
        Shortcut("1", "A1 is more convincing"),
        Shortcut("2", "A1 is less convincing"),
        Shortcut("3", "equally convincing"),
        Shortcut("n / s / o", "my standpoint: none / same / opposite"),
        Shortcut("r", "write the reason"),
        Shortcut("Ctrl+Enter", "submit"),
    )
    item_tools = (("admin:annotation_project_pairs", "Generate pairs"),)
    urls = "task_types.pairwise.urls"
    commands = ("import_arguments", "generate_pairs", "reproduce_ukpconvarg")
    export_columns = ("topic", "pair_id", "arg1", "arg2", "label", "reason", "worker_stance")
    answer_columns = ("label", "standpoint")
    answer_fields = (
        AnswerField("label", "choice", "a1, a2 or equal: which argument is more convincing."),
        AnswerField("standpoint", "choice", "none, same or opposite: the worker's own standpoint on the topic."),
        AnswerField("reason", "text", f"Why, in {REASON_MIN}–{REASON_MAX} characters."),
    )
    level = "nominal"
    categories = tuple(LABELS.items())
    # Which argument is shown on the left (as A1) is drawn per assignment; the answer names the
    # argument by its import side (a1: the item's arg1), whichever side it was shown on.
    shown_order_parts = ("sides",)
    gold_fields = ("label",)
    reason_review = ("gold-page", "reasons")
    first_shown = "the argument shown on the left (A1)"
    shown_position_names = ("A1", "A2")
    known_answer_column = "gold"

    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        topic = _text(record, "topic")
        prompt = _text(record, "prompt")
        stance = _text(record, "stance")
        arg1_id, arg1_text = _argument(record, "arg1")
        arg2_id, arg2_text = _argument(record, "arg2")
        if arg1_id == arg2_id:
            raise FieldError("arg2_id", f"must differ from arg1_id ({arg1_id!r})")
        external_id = _text(record, "id", required=False) or f"{arg1_id}_{arg2_id}"
        gold = record.get("gold")
        if gold in (None, ""):
            gold = None
        elif gold not in LABELS:
            raise FieldError("gold", f"must be one of {', '.join(LABELS)}, got {gold!r}")
        payload = {
            "topic": topic,
            "prompt": prompt,
            "stance": stance,
            "arg1": {"id": arg1_id, "text": arg1_text},
            "arg2": {"id": arg2_id, "text": arg2_text},
        }
        return CleanItem(external_id=external_id, payload=payload, gold=gold)

    def clean_answer(self, data: Mapping[str, Any] | AnswerData, *, payload: Mapping[str, Any],
                     context: AnswerContext = NO_CONTEXT) -> CleanAnswer:
        # JSON clients can send any type; only text is an answer.
        values, errors = AnswerData.wrap(data).read(self.answer_fields)
        label = values["label"].strip()
        if label not in LABELS:
            errors.setdefault("label", "Choose which argument is more convincing.")
        standpoint = values["standpoint"].strip()
        if standpoint not in STANDPOINTS:
            errors.setdefault("standpoint", "Say what your own standpoint on the topic is.")
        reason = " ".join(values["reason"].split())
        if len(reason) < REASON_MIN:
            errors.setdefault(
                "reason", f"The reason needs at least {REASON_MIN} characters (it has {len(reason)})."
            )
        elif len(reason) > REASON_MAX:
            errors.setdefault(
                "reason", f"The reason may have at most {REASON_MAX} characters (it has {len(reason)})."
            )
        if errors:
            raise AnswerInvalid(errors)
        return CleanAnswer(answer={"label": label, "standpoint": standpoint}, reason=reason)

    def initial_answer(
        self, *, payload: Mapping[str, Any], previous: tuple[Mapping[str, Any], Mapping[str, Any]] | None
    ) -> dict[str, Any]:
        # The standpoint is about the topic, not the pair: carry it over within a topic.
        if previous is not None:
            prev_payload, prev_answer = previous
            if prev_payload.get("topic") == payload.get("topic"):
                return {"standpoint": prev_answer.get("standpoint", "")}
        return {}

    def order_parts(self, payload: Mapping[str, Any]) -> dict[str, list[Any]]:
        return {"sides": ["a1", "a2"]}

    def gold_choices(self, payload: Mapping[str, Any], name: str) -> list[str] | None:
        # A gold pair's label; a tie may be the label or an accepted alternative.
        return list(LABELS)

    def apply_order(self, payload: Mapping[str, Any], order: Mapping[str, list[Any]]) -> Mapping[str, Any]:
        """The payload with ``sides`` instead of ``arg1`` and ``arg2``: the two arguments' texts
        as shown, left (A1) first, each with the answer value that names it (``a1`` for the
        item's arg1, wherever it is shown). A client that showed ``arg1`` on the left would undo
        the drawn order, and the arguments' ids (of which the default item id is made) are no
        business of the worker's."""
        sides = [side for side in order.get("sides") or ("a1", "a2") if side in ("a1", "a2")]
        if sorted(sides) != ["a1", "a2"]:
            sides = ["a1", "a2"]
        shown = {k: v for k, v in payload.items() if k not in ("arg1", "arg2")}
        return {**shown, "sides": [{"id": side, "text": payload[f"arg{side[1]}"]["text"]} for side in sides]}

    def answer_as_seen(self, answer: Mapping[str, Any], *, order: Mapping[str, Any] | None) -> str | None:
        """The words of the choice the worker clicked: the page calls the argument on the left A1,
        whichever of the item's arguments was drawn for that side, e.g. "A1 is more convincing
        (A1 was the item's arg2)" for a stored ``a2`` with the sides swapped."""
        sides = list((order or {}).get("sides") or ())
        if sorted(sides) != ["a1", "a2"]:
            return None
        label = answer.get("label")
        if label not in LABELS:
            return None
        left = f"A1 was the item's arg{sides[0][1]}"
        if label == "equal":
            return f"{LABELS['equal']} ({left})"
        clicked = "a1" if label == sides[0] else "a2"
        return f"{LABELS[clicked]} ({left})"

    def answer_as_stored(self, answer: Mapping[str, Any]) -> str:
        # The stored label names the item's argument by its import side, whatever side it was shown on.
        label = answer.get("label")
        if label == "equal":
            return "equal: the item's arguments are equally convincing"
        if label in ("a1", "a2"):
            return f"{label}: the item's arg{label[1]} is more convincing"
        return str(label)

    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"label": answer["label"], "standpoint": answer.get("standpoint", "")}]

    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict[str, Any]:
        p = ctx.payload
        return {
            "topic": p["topic"],
            "pair_id": ctx.item_external_id,
            "arg1": p["arg1"]["id"],
            "arg2": p["arg2"]["id"],
            "label": answer["label"],
            "reason": reason,
            "worker_stance": answer.get("standpoint", ""),
        }

    def label_display(self, answer: Mapping[str, Any]) -> str:
        return LABELS.get(answer.get("label", ""), str(answer))

    def label_display_as_shown(self, answer: Mapping[str, Any], *, order: Mapping[str, Any] | None) -> str:
        # The labels' words name places (A1 is the argument shown left): with the sides drawn the
        # other way round, the item's arg2 stood left, so its "a2" read "A1 is more convincing".
        sides = list((order or {}).get("sides") or ())
        label = str(answer.get("label", ""))
        if sides == ["a2", "a1"] and label in ("a1", "a2"):
            label = "a1" if label == "a2" else "a2"
        return LABELS.get(label, str(answer))

    def group_of(self, payload: Mapping[str, Any]) -> str | None:
        # The topic id is prompt + stance: both arguments of a pair share it.
        return payload.get("topic") or None

    def item_columns(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        return {"topic": payload["topic"], "arg1": payload["arg1"]["id"], "arg2": payload["arg2"]["id"],
                "arg1_text": payload["arg1"]["text"], "arg2_text": payload["arg2"]["text"]}

    def item_summary(self, payload: Mapping[str, Any], *, length: int = 120) -> str:
        # Both arguments get half of the room: which one is which matters more than either's end.
        side = max((length - len("A1:  · A2: ")) // 2, 8)
        return (f"A1: {shorten(payload['arg1']['text'], side)} · "
                f"A2: {shorten(payload['arg2']['text'], side)}")

    def example(self) -> Example:
        prompt, stance = "Is the school uniform a good or bad idea?", "Bad"
        records = [
            {"id": "u1_u2", "topic": "uniform_bad", "prompt": prompt, "stance": stance,
             "arg1_id": "u1", "arg1_text": "Uniforms stop pupils from expressing who they are.",
             "arg2_id": "u2", "arg2_text": "Uniforms cost families money they could spend on books."},
            {"id": "u2_u3", "topic": "uniform_bad", "prompt": prompt, "stance": stance,
             "arg1_id": "u2", "arg1_text": "Uniforms cost families money they could spend on books.",
             "arg2_id": "u3", "arg2_text": "bad", "gold": "a1"},
        ]
        reason = "A1 names a concrete cost, A2 gives no reason at all."
        answer = {"label": "a1", "standpoint": "none", "reason": reason}
        return Example(records=records, answer=answer, form=list(answer.items()),
                       invalid={"label": "a1", "standpoint": "none", "reason": "too short"}, invalid_field="reason")

    def example_gold(self) -> list[dict[str, Any]]:
        return [{"label": label} for label in LABELS]

    def admin_urls(self, model_admin: Any) -> list[Any]:
        from task_types.pairwise.admin import admin_urls

        return admin_urls(model_admin)

    def demo(self, ctx: DemoContext) -> None:
        from task_types.pairwise.demo import demo_project

        demo_project(ctx, slug=self.slug)

    crowd_fields = (
        ImportField("pair_id", False, "Pair id; default `<arg1>_<arg2>`."),
        ImportField("topic", True, "Topic id; the arguments must belong to it."),
        ImportField("arg1", True, "Id of the argument shown as A1 (its text comes from the imported arguments)."),
        ImportField("arg2", True, "Id of the argument shown as A2."),
        ImportField("label", True, "a1, a2 or equal."),
        ImportField("reason", False, "The worker's reason, kept as written."),
        ImportField("worker_stance", False, "same, opposite, none or empty (not asked)."),
    )

    def clean_crowd_record(self, record: Mapping[str, Any]) -> CrowdAnswer:
        topic = _text(record, "topic")
        arg1, arg2 = _text(record, "arg1"), _text(record, "arg2")
        if arg1 == arg2:
            raise FieldError("arg2", f"must differ from arg1 ({arg1!r})")
        label = _text(record, "label").lower()
        if label not in LABELS:
            raise FieldError("label", f"must be one of {', '.join(LABELS)}, got {label!r}")
        stance = _text(record, "worker_stance", required=False).lower()
        if stance and stance not in STANDPOINTS:
            raise FieldError("worker_stance", f"must be one of {', '.join(STANDPOINTS)} or empty, got {stance!r}")
        # Results collected elsewhere are kept as they are: the HIT's reason limits applied to
        # that platform's form, not to this record.
        reason = " ".join(_text(record, "reason", required=False).split())
        return CrowdAnswer(
            item_id=_text(record, "pair_id", required=False) or f"{arg1}_{arg2}",
            answer={"label": label, "standpoint": stance},
            reason=reason,
            item_source={"topic": topic, "arg1": arg1, "arg2": arg2},
        )

    def crowd_items(self, sources: Mapping[str, Mapping[str, Any]]) -> dict[str, CleanItem]:
        # Imported here: task types are loaded before the models that the corpus reads.
        from task_types.pairwise.corpus import corpus_arguments

        known = corpus_arguments(ids={s[side] for s in sources.values() for side in ("arg1", "arg2")})
        items = {}
        for item_id, source in sources.items():
            for side in ("arg1", "arg2"):
                arg = known.get(source[side])
                if arg is None:
                    raise CrowdItemError(item_id, side, f"unknown argument {source[side]!r}: import the arguments first")
                if arg.topic != source["topic"]:
                    raise CrowdItemError(item_id, "topic", f"argument {arg.id!r} belongs to topic {arg.topic!r}, not {source['topic']!r}")
            a1, a2 = known[source["arg1"]], known[source["arg2"]]
            items[item_id] = self.clean_item({
                "id": item_id, "topic": source["topic"], "prompt": a1.prompt, "stance": a1.stance,
                "arg1_id": a1.id, "arg1_text": a1.text, "arg2_id": a2.id, "arg2_text": a2.text,
            })
        return items
