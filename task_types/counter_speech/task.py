"""Counter-speech selection (Orbach et al., "Out of the Echo Chamber", ACL 2020).

An item shows a motion, a supporting speech and 3–5 opposing speeches (candidates); the annotator
picks the one recorded in response to the supporting speech, and says why from a fixed list of
reasons (several allowed; "other" needs words). The true counters are known by design and kept in
the item's gold, so the task measures annotators; a project may pay a bonus per correct answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django import forms

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
from task_types.counter_speech.corpus import KINDS, SETTINGS
from task_types.counter_speech.demo import demo_projects
from task_types.counter_speech.masking import mask_names

# The paper's reasons, with their shortcut keys.
REASONS = {
    "quote": ("Quotes a phrase of the speech", "q"),
    "specific": ("Mentions a specific case or argument of the speech", "c"),
    "comprehensive": ("Responds more comprehensively", "m"),
    "order": ("Follows the same order", "o"),
    "similar": ("Raises similar issues", "s"),
    "main_issue": ("Addresses the main issue", "i"),
    "elimination": ("By elimination: the others do not respond", "e"),
    "guess": ("A guess", "g"),
    "other": ("Other (say what)", "x"),
}
MAX_CANDIDATES = 5
SUPPORTING_ID = "supporting"  # the supporting speech's id in the payload; its corpus id is gold
MAX_TEXT = limits.TRANSCRIPT
OTHER_MAX = 300
GUIDELINES = """\
## Which speech answers this one?

Each item shows a debate **motion**, a speech **supporting** it, and two to five speeches
**opposing** it. One of the opposing speeches (sometimes more) was recorded as a direct response
to the supporting speech. **Choose the speech that responds to it**, then say why: tick every
reason that applies, and describe your reason when you tick *Other*.

Read the supporting speech first, then the candidates. A response often picks up the supporting
speaker's words, examples or order of arguments; the other speeches argue the same side without
answering this speaker.

**If you aren't sure, take a guess and say so** (tick *A guess*): a guess is an honest answer.
"""


class CounterSpeechOptions(forms.Form):
    layout = forms.ChoiceField(
        choices=[("side_by_side", "Side by side: every candidate at once, in columns"),
                 ("one_at_a_time", "One at a time: each candidate opens on its own")],
        initial="side_by_side", label="Candidates shown")
    bonus_per_correct = forms.DecimalField(
        initial="0.00", min_value=Decimal("0"), max_digits=8, decimal_places=2, required=False,
        label="Bonus per correct answer", help_text="Recorded in the bonus ledger for each correct choice; 0 for none.")
    currency = forms.RegexField(regex=r"^[A-Za-z]{3}$", initial="USD", label="Bonus currency",
                                help_text="ISO code, e.g. USD or GBP (Prolific pays in GBP).")

    def clean_bonus_per_correct(self) -> str:
        # Kept as text in the project's options (JSON), read back as a Decimal: money is exact.
        return str((self.cleaned_data["bonus_per_correct"] or Decimal("0")).quantize(Decimal("0.01")))


def _text(record: Mapping[str, Any], name: str, *, required: bool = True, limit: int = 200) -> str:
    return record_text(record, name, required=required, limit=limit)


def _speech(record: Any, where: str) -> dict[str, str]:
    if not isinstance(record, Mapping):
        raise FieldError(where, "must be an object with id, speaker, transcript and audio")
    try:
        speech = {"id": _text(record, "id"), "speaker": _text(record, "speaker", required=False),
                  "transcript": _text(record, "transcript", required=False, limit=MAX_TEXT),
                  "audio": _text(record, "audio", required=False)}
    except FieldError as exc:
        raise FieldError(f"{where}.{exc.field}", exc.message) from None
    if not speech["transcript"] and not speech["audio"]:
        raise FieldError(f"{where}.transcript", "a speech needs a transcript or audio")
    return speech


def bonus_text(options: Mapping[str, Any]) -> str:
    """The bonus per correct answer with its currency ("0.10 USD"), or "" when none is paid."""
    amount = Decimal(str(options.get("bonus_per_correct") or 0))
    return f"{amount.quantize(Decimal('0.01'))} {str(options.get('currency') or 'USD').upper()}" if amount > 0 else ""


def _speakers(record: Mapping[str, Any]) -> list[str]:
    raw = record.get("speakers") or []
    if isinstance(raw, str):
        raw = [p for p in raw.split("|")]
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise FieldError("speakers", "must be a list of names (or names joined by |)")
    return [p.strip() for p in raw if p.strip()]


def _ids(raw: Any) -> list[str]:
    return [str(v) for v in raw] if isinstance(raw, list) else []


class CounterSpeech(TaskType):
    slug = "counter_speech"
    name = "Counter-speech selection"
    description = "Which of the opposing speeches was recorded in response to the supporting speech, and why."
    template = "counter_speech/item.html"
    default_guidelines = GUIDELINES
    level = "nominal"
    # The candidates are shown in an order drawn per assignment; the answer names its speech by id.
    shown_order_parts = ("candidates",)
    gold_fields = ("choice",)
    first_shown = "the candidate speech shown first"
    options_form = CounterSpeechOptions
    styles = ("counter_speech/counter_speech.css",)
    media = ("audio",)
    item_tools = (("admin:annotation_project_counter_speech", "Build questions"),)
    urls = "task_types.counter_speech.urls"
    commands = ("build_counter_speech",)
    # (code, text, key) of the reasons, for the template.
    reason_choices = tuple((code, text, key) for code, (text, key) in REASONS.items())
    answer_fields = (
        AnswerField("choice", "choice", "Id of the chosen candidate speech."),
        AnswerField("reasons", "choices", f"Reason codes, at least one: {', '.join(REASONS)}."),
        AnswerField("reason", "text", f"Required with 'other': the reason in words (at most {OTHER_MAX} characters).",
                    required=False),
    )
    import_fields = (
        ImportField("id", False, "Item id; default `<speech id>__<setting>`."),
        ImportField("motion_id", False, "Id of the motion."),
        ImportField("motion", True, "The motion's text."),
        ImportField("setting", False, "Which counters the question was built from: all (default), explicit or implicit."),
        ImportField("speakers", False, "Every speaker of the motion (a list, or names joined by |): their names "
                    "are masked in the transcripts shown, like the speakers of the speeches themselves."),
        ImportField("speech", True, "The supporting speech: `{\"id\", \"speaker\", \"transcript\", \"audio\"}`."),
        ImportField("candidates", True, "2–5 opposing speeches in the order shown, each like `speech`; their ids "
                    "are in the page, so they must not give the answer away (the builder uses a, b, c …)."),
        ImportField("gold", True, "The true counter: `{\"counters\": [candidate id], \"kind\": explicit|implicit|\"\", "
                    "\"sources\": {candidate id: corpus id}}`, or the candidate id."),
    )
    export_columns = ("speech", "speaker", "motion_id", "setting", "choice", "choice_speech", "choice_speaker",
                      "choice_position", "n_candidates", "correct", "counter_kind", "reasons", "reason")
    shortcuts = (
        Shortcut("1 … 5", "choose a candidate"),
        Shortcut(" ".join(key for _, key in REASONS.values()), "tick a reason (x: other, then type)"),
        Shortcut("Ctrl+Enter", "submit"),
    )

    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        import json

        speech = _speech(record.get("speech"), "speech")
        raw = record.get("candidates")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except (ValueError, RecursionError):
                raise FieldError("candidates", "must be a JSON list") from None
        if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_CANDIDATES:
            raise FieldError("candidates", f"must be a list of 2 to {MAX_CANDIDATES} speeches")
        candidates = [_speech(c, f"candidates[{i}]") for i, c in enumerate(raw, 1)]
        ids = [c["id"] for c in candidates]
        if len(set(ids)) != len(ids) or speech["id"] in ids or SUPPORTING_ID in ids:
            raise FieldError("candidates", "candidate ids must differ from each other, from the supporting speech "
                             f"and from {SUPPORTING_ID!r}")
        setting = _text(record, "setting", required=False) or "all"
        if setting not in SETTINGS:
            raise FieldError("setting", f"must be one of {', '.join(SETTINGS)}, got {setting!r}")
        gold = record.get("gold")
        if isinstance(gold, str) and gold.strip().startswith("{"):
            try:
                gold = json.loads(gold)
            except (ValueError, RecursionError):
                raise FieldError("gold", "must be a JSON object or a candidate id") from None
        sources: Mapping[Any, Any] = {}
        if isinstance(gold, Mapping):
            counters, kind = gold.get("counters"), str(gold.get("kind") or "")
            sources = gold.get("sources") or {}
            if not isinstance(sources, Mapping) or set(map(str, sources)) - set(ids):
                raise FieldError("gold", "sources must map candidate ids to corpus ids")
        else:
            counters, kind = gold, str(record.get("counter_kind") or "")
        if isinstance(counters, str | int):
            counters = [c.strip() for c in str(counters).split("|") if c.strip()]
        # Exactly one: accuracy, its random baseline (1/k) and the rankings all assume it.
        if not isinstance(counters, list) or len(counters) != 1 or str(counters[0]) not in ids:
            raise FieldError("gold", "must name exactly one true counter among the candidates' ids")
        if kind and kind not in KINDS:
            raise FieldError("gold", f"kind must be explicit, implicit or empty, got {kind!r}")
        motion_id = _text(record, "motion_id", required=False)
        # What annotators read names nobody: the speakers' names (of these speeches and any other
        # speaker of the motion the record lists) are masked in the transcripts and kept, with
        # the supporting speech's corpus id, in the gold for researchers.
        everyone = [speech["speaker"], *(c["speaker"] for c in candidates), *_speakers(record)]
        # A candidate's id reaches the worker as the value of its choice. Ids that name a speaker
        # (the IBM release's end with the speaker a speech answers: the true counter names the
        # supporting speaker) become c1, c2 … in import order, the originals kept in the gold's
        # sources, where the corpus ids of built questions already are.
        names = {str(n).lower() for n in everyone if len(str(n)) >= 2}
        if any(name in str(i).lower() for i in ids for name in names):
            renamed = {str(c["id"]): f"c{n}" for n, c in enumerate(candidates, 1)}
            sources = {renamed[old]: str(sources.get(old, old)) for old in renamed}
            counters = [renamed[str(c)] for c in counters]
            candidates = [{**c, "id": renamed[str(c["id"])]} for c in candidates]
        for shown in (speech, *candidates):
            shown["transcript"] = mask_names(shown["transcript"], everyone)
        gold_extra = {"speech": speech["id"], "speaker": speech["speaker"],
                      "speakers": {c["id"]: c["speaker"] for c in candidates},
                      "counters_all": _ids(gold.get("counters_all") if isinstance(gold, Mapping) else None)}
        speech = {**speech, "id": SUPPORTING_ID, "speaker": ""}
        candidates = [{**c, "speaker": ""} for c in candidates]
        payload = {"motion_id": motion_id, "motion": _text(record, "motion", limit=limits.TOPIC),
                   "setting": setting, "speech": speech, "candidates": candidates}
        neutral = hashlib.sha256(str(gold_extra["speech"]).encode()).hexdigest()[:10]
        external_id = _text(record, "id", required=False) or f"{motion_id or 'q'}-{neutral}__{setting}"
        return CleanItem(external_id=external_id, payload=payload,
                         gold={"counters": [str(c) for c in counters], "kind": kind,
                               "sources": {str(k): str(v) for k, v in sources.items()}, **gold_extra})

    def media_keys(self, payload: Mapping[str, Any]) -> list[str]:
        return [s["audio"] for s in (payload["speech"], *payload["candidates"]) if s.get("audio")]

    def clean_answer(self, data: Mapping[str, Any] | AnswerData, *, payload: Mapping[str, Any],
                     context: AnswerContext = NO_CONTEXT) -> CleanAnswer:
        values, errors = AnswerData.wrap(data).read(self.answer_fields)
        ids = [c["id"] for c in payload.get("candidates", [])]
        if "choice" not in errors and values["choice"] not in ids:
            errors["choice"] = "Choose the speech that responds to the supporting speech."
        reasons = list(dict.fromkeys(values["reasons"]))
        unknown = [r for r in reasons if r not in REASONS]
        if "reasons" not in errors:
            if not reasons:
                errors["reasons"] = "Tick at least one reason (A guess, if you guessed)."
            elif unknown:
                errors["reasons"] = f"Unknown reason: {', '.join(unknown[:3])}."
        other = " ".join((values["reason"] or "").split())
        if "other" in reasons and not other and "reason" not in errors:
            errors["reason"] = "Say what your other reason is."
        elif len(other) > OTHER_MAX:
            errors["reason"] = f"At most {OTHER_MAX} characters (it has {len(other)})."
        if errors:
            raise AnswerInvalid(errors)
        ordered = [r for r in REASONS if r in reasons]
        return CleanAnswer(answer={"choice": values["choice"], "reasons": ordered},
                           reason=other if "other" in reasons else "")

    def form_values(self, data: Mapping[str, Any] | AnswerData) -> dict[str, Any]:
        values, _ = AnswerData.wrap(data).read(self.answer_fields)
        return values

    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"label": answer["choice"], "reasons": list(answer.get("reasons", []))}]

    def group_of(self, payload: Mapping[str, Any]) -> str | None:
        return payload.get("motion_id") or payload.get("motion") or None

    def item_columns(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        return {"motion": payload.get("motion_id") or payload["motion"], "setting": payload.get("setting", "all"),
                "supporting": payload["speech"]["transcript"],
                "candidates": [{"id": c["id"], "transcript": c["transcript"]} for c in payload["candidates"]]}

    def item_summary(self, payload: Mapping[str, Any], *, length: int = 120) -> str:
        head = f"{len(payload['candidates'])} candidates: "
        return head + shorten(payload["motion"], max(length - len(head), 8))

    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict[str, Any]:
        p = ctx.payload
        ids = [c["id"] for c in p["candidates"]]
        gold = ctx.gold or {}
        # The speakers' names, masked on the page, are part of the data: the export has them.
        return {"speech": gold.get("speech") or p["speech"]["id"], "speaker": gold.get("speaker", ""),
                "motion_id": p.get("motion_id", ""), "setting": p.get("setting", "all"),
                "choice": answer["choice"], "choice_speech": (gold.get("sources") or {}).get(answer["choice"], answer["choice"]),
                "choice_speaker": (gold.get("speakers") or {}).get(answer["choice"], ""),
                "choice_position": ids.index(answer["choice"]) + 1 if answer["choice"] in ids else "",
                "n_candidates": len(ids), "correct": answer["choice"] in gold.get("counters", []) if gold else "",
                "counter_kind": gold.get("kind", ""), "reasons": "|".join(answer.get("reasons", [])), "reason": reason}

    def label_display(self, answer: Mapping[str, Any]) -> str:
        return f"candidate {answer.get('choice', '')}"

    def bonus_for(self, *, answer: Mapping[str, Any], gold: Any,
                  options: Mapping[str, Any]) -> tuple[Decimal, str] | tuple[Decimal, str, str] | None:
        amount = Decimal(str(options.get("bonus_per_correct") or 0))
        if amount > 0 and gold and answer.get("choice") in gold.get("counters", []):
            return amount, "correct counter-speech choice", str(options.get("currency") or "USD").upper()
        return None

    def guidelines_notes(self, *, options: Mapping[str, Any]) -> tuple[str, ...]:
        bonus = bonus_text(options)
        return (f"Each correct choice earns a bonus of {bonus}, paid after the work is checked.",) if bonus else ()

    def example(self) -> Example:
        def speech(sid: str, speaker: str, text: str) -> dict[str, str]:
            return {"id": sid, "speaker": speaker, "transcript": text, "audio": ""}

        records = [
            {"id": "q1", "motion_id": "m1", "motion": "We should ban boxing",
             "speech": speech("p1", "rachel", "Boxing harms the brain of every boxer."),
             "candidates": [speech("c1", "james", "Rachel said boxing harms the brain, but helmets protect it."),
                            speech("c2", "will", "A ban on school uniforms would cost families money.")],
             "gold": {"counters": ["c1"], "kind": "explicit"}},
            {"id": "q2", "motion_id": "m1", "motion": "We should ban boxing",
             "speech": speech("p2", "daniel", "Boxing glorifies violence."),
             "candidates": [speech("c3", "kim", "Violence in boxing is controlled by rules."),
                            speech("c4", "lee", "Boxers choose their own risks.")],
             "gold": "c3"},
        ]
        answer = {"choice": "c1", "reasons": ["quote", "main_issue"], "reason": ""}
        return Example(records=records, answer=answer,
                       form=[("choice", "c1"), ("reasons", "quote"), ("reasons", "main_issue")],
                       invalid={"choice": "c1", "reasons": ["other"], "reason": ""}, invalid_field="reason")

    def example_gold(self) -> list[dict[str, Any]]:
        return [{"choice": "c1"}, {"choice": "c2"}]

    def files_imports(self) -> dict[str, FilesImport]:
        # Imported lazily: services reach the ORM, which the type's module must not at load time.
        from task_types.counter_speech.services import questions_files_read

        return {"questions": FilesImport(files=(), read=questions_files_read,
                                         page="admin:annotation_project_counter_speech", keep_existing=True)}

    def admin_urls(self, model_admin: Any) -> list[Any]:
        from task_types.counter_speech.admin import admin_urls

        return admin_urls(model_admin)

    def demo(self, ctx: DemoContext) -> None:
        demo_projects(self, ctx)
