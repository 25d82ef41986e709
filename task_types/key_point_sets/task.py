"""Key-point set ranking (KPA 2021 shared task, track 2).

An item shows two or more systems' key-point sets for one topic and stance, each key point with
its prevalence (the share of the topic and stance's arguments that the system matched to it, to
be taken as correct), and asks which set is the clearest and most informative summary. The sets
appear under neutral ids (a, b, c …) in an order the builder draws; which system made which set
is kept in the item's gold, so judges never see the systems' names.
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
    DemoContext,
    Example,
    ExportContext,
    FieldError,
    FilesImport,
    ImportField,
    Shortcut,
    TaskType,
    record_text,
    shorten,
)
from task_types.key_point_sets.limits import MAX_SETS, SET_IDS, SLUG

MAX_KEY_POINTS = 20
GUIDELINES = """\
## Which summary is clearest and most informative?

Each item shows a debatable **topic**, a **stance** towards it, and two or more **sets of key
points**: short statements that each summarise many people's arguments for that stance. Beside
each key point is its **prevalence**: the share of the arguments it stands for. Take these
figures as correct.

**Choose the set that gives the clearest and most informative summary** of the arguments for
this stance: key points that are easy to understand, that do not repeat each other, and that
together cover what people argued.
"""


def _stance(record: Mapping[str, Any]) -> int:
    raw = record.get("stance")
    try:
        stance = int(float(str(raw).strip()))
    except ValueError:
        raise FieldError("stance", f"must be 1 (pro) or -1 (con), got {raw!r}") from None
    if stance not in (1, -1):
        raise FieldError("stance", f"must be 1 (pro) or -1 (con), got {raw!r}")
    return stance


def _key_point(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise FieldError(where, "must be an object with text and share")
    try:
        text = record_text(raw, "text", limit=limits.KEY_POINT)
    except FieldError as exc:
        raise FieldError(f"{where}.{exc.field}", exc.message) from None
    try:
        share = float(raw.get("share"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise FieldError(f"{where}.share", "must be a number from 0 to 1") from None
    if not 0 <= share <= 1:
        raise FieldError(f"{where}.share", f"must be a number from 0 to 1, got {share}")
    matched = raw.get("matched")
    if matched is not None and (not isinstance(matched, int) or isinstance(matched, bool) or matched < 0):
        raise FieldError(f"{where}.matched", "must be a count of arguments (0 or more)")
    return {"text": text, "share": share, "matched": matched}


def _key_point_set(raw: Any, where: str) -> tuple[str, list[dict[str, Any]]]:
    if not isinstance(raw, Mapping):
        raise FieldError(where, "must be an object with system and key_points")
    try:
        system = record_text(raw, "system", limit=100)
    except FieldError as exc:
        raise FieldError(f"{where}.{exc.field}", exc.message) from None
    points = raw.get("key_points")
    if not isinstance(points, list) or not 1 <= len(points) <= MAX_KEY_POINTS:
        raise FieldError(f"{where}.key_points", f"must be a list of 1 to {MAX_KEY_POINTS} key points")
    return system, [_key_point(p, f"{where}.key_points[{i}]") for i, p in enumerate(points, 1)]


class KeyPointSets(TaskType):
    slug = SLUG
    name = "Key-point set ranking"
    description = ("Which of two or more systems' key-point sets, each key point with its prevalence, is the "
                   "clearest and most informative summary of a topic and stance.")
    template = "key_point_sets/item.html"
    default_guidelines = GUIDELINES
    level = "nominal"
    # The sets are shown in an order drawn per assignment; the answer names its set by id.
    shown_order_parts = ("sets",)
    gold_fields = ("choice",)
    first_shown = "the set shown first"
    styles = ("key_point_sets/key_point_sets.css",)
    commands = ("key_point_sets_build",)
    item_tools = (("admin:annotation_project_key_point_sets", "Build key-point set comparisons"),)
    urls = "task_types.key_point_sets.urls"
    answer_fields = (AnswerField("choice", "choice", "Id of the chosen key-point set (a, b, …)."),)
    answer_columns = ("choice",)
    import_fields = (
        ImportField("id", False, "Item id; default `<topic>|<stance>|<systems>`."),
        ImportField("topic", True, "The debatable topic."),
        ImportField("stance", True, "1 (pro) or -1 (con)."),
        ImportField("sets", True, f"2–{MAX_SETS} key-point sets in the order shown: "
                    "`{\"system\": name, \"key_points\": [{\"text\", \"share\" (0–1), \"matched\" (optional count)}]}`; "
                    "the systems' names are kept as gold, never shown."),
        ImportField("arguments", False, "How many arguments of the topic and stance the prevalences count from."),
    )
    export_columns = ("topic", "stance", "choice", "choice_system", "systems_shown", "n_sets")
    shortcuts = (Shortcut("1 … 5", "choose a set"), Shortcut("Ctrl+Enter", "submit"))

    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        import json

        topic = record_text(record, "topic", limit=limits.TOPIC)
        stance = _stance(record)
        raw = record.get("sets")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except (ValueError, RecursionError):
                raise FieldError("sets", "must be a JSON list") from None
        if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_SETS:
            raise FieldError("sets", f"must be a list of 2 to {MAX_SETS} key-point sets")
        parsed = [_key_point_set(s, f"sets[{i}]") for i, s in enumerate(raw, 1)]
        systems = [system for system, _ in parsed]
        if len(set(systems)) != len(systems):
            raise FieldError("sets", "each set must come from a different system")
        arguments = record.get("arguments")
        if arguments not in (None, "") and (not str(arguments).isdigit()):
            raise FieldError("arguments", f"must be a count of arguments, got {arguments!r}")
        sets = [{"id": SET_IDS[i], "key_points": points} for i, (_, points) in enumerate(parsed)]
        payload = {"topic": topic, "stance": stance, "sets": sets,
                   "arguments": int(arguments) if arguments not in (None, "") else None}
        external_id = record_text(record, "id", required=False) or f"{topic}|{stance}|{'|'.join(sorted(systems))}"
        return CleanItem(external_id=external_id[:200], payload=payload,
                         gold={"systems": {SET_IDS[i]: system for i, system in enumerate(systems)}})

    def clean_answer(self, data: Mapping[str, Any] | AnswerData, *, payload: Mapping[str, Any],
                     context: AnswerContext = NO_CONTEXT) -> CleanAnswer:
        values, errors = AnswerData.wrap(data).read(self.answer_fields)
        ids = [s["id"] for s in payload.get("sets", [])]
        if "choice" not in errors and values["choice"] not in ids:
            errors["choice"] = "Choose the clearest and most informative set."
        if errors:
            raise AnswerInvalid(errors)
        return CleanAnswer(answer={"choice": values["choice"]})

    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"label": answer["choice"]}]

    def group_of(self, payload: Mapping[str, Any]) -> str | None:
        return f"{payload['topic']}|{payload['stance']}" if payload.get("topic") else None

    def item_columns(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        return {"topic": payload["topic"], "stance": payload["stance"], "sets": [s["id"] for s in payload["sets"]]}

    def item_summary(self, payload: Mapping[str, Any], *, length: int = 120) -> str:
        head = f"{len(payload['sets'])} sets, stance {payload['stance']:+d}: "
        return head + shorten(payload["topic"], max(length - len(head), 8))

    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict[str, Any]:
        systems = (ctx.gold or {}).get("systems") or {}
        ids = [s["id"] for s in ctx.payload["sets"]]
        return {"topic": ctx.payload["topic"], "stance": ctx.payload["stance"], "choice": answer["choice"],
                "choice_system": systems.get(answer["choice"], ""),
                "systems_shown": "|".join(systems.get(i, i) for i in ids), "n_sets": len(ids)}

    def label_display(self, answer: Mapping[str, Any]) -> str:
        return f"set {answer.get('choice', '')}"

    def example(self) -> Example:
        def kps(*pairs: tuple[str, float]) -> list[dict[str, Any]]:
            return [{"text": text, "share": share} for text, share in pairs]

        topic = "We should abandon the use of school uniform"
        records = [
            {"id": "uniform-pro", "topic": topic, "stance": 1, "arguments": 117, "sets": [
                {"system": "system-1", "key_points": kps(("Uniforms limit self-expression", 0.4),
                                                          ("Uniforms are expensive", 0.2))},
                {"system": "system-2", "key_points": kps(("School uniform is bad", 0.7), ("Uniforms", 0.1))}]},
            {"id": "uniform-con", "topic": topic, "stance": -1, "sets": [
                {"system": "system-1", "key_points": kps(("Uniforms reduce bullying", 0.5))},
                {"system": "system-2", "key_points": kps(("Uniforms build a school identity", 0.3))}]},
        ]
        return Example(records=records, answer={"choice": "a"}, form=[("choice", "a")],
                       invalid={"choice": "z"}, invalid_field="choice")

    def example_gold(self) -> list[dict[str, Any]]:
        return [{"choice": "a"}, {"choice": "b"}]

    def files_imports(self) -> dict[str, FilesImport]:
        from task_types.key_point_sets.build import sets_files_read
        from task_types.key_point_sets.sets_tool import SLOTS

        files = ("arguments", *(f"{kind}_{n}" for n in range(1, SLOTS + 1) for kind in ("key_points", "predictions")))
        return {"sets": FilesImport(files=files, read=sets_files_read, page="admin:annotation_project_key_point_sets",
                                    keep_existing=True)}

    def admin_urls(self, model_admin: Any) -> list[Any]:
        from task_types.key_point_sets.admin import admin_urls

        return admin_urls(model_admin)

    def demo(self, ctx: DemoContext) -> None:
        from task_types.key_point_sets.demo import demo_project

        demo_project(self, ctx)
