"""Listening and reading comprehension (Mirkin et al., EMNLP 2018).

An item is one debate speech with every argument title of its motion on the speech's side; the
annotator hears the speech (listening) or reads its transcript (reading) and ticks the titles the
speaker argued, or "None" (exclusive). Each (speech, title) pair becomes a binary question of the
long frame. In listening mode the client reports playback events, and the server refuses an
answer that breaks the project's playback rules (by default: play once, no pause, no seeking, to
the end) or that its own records contradict (the clip's length, the time since hand-out, the
clip's fetches and starts for the assignment). A listening worker never receives the transcript.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from django import forms

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
    ImportField,
    Shortcut,
    TaskType,
    choices_problem,
    shorten,
)
from annotation.task_types.playback import (
    PLAYBACK_OPTIONS,
    PlaybackOptions,
    playback_check,
    playback_form_value,
    playback_summary,
)
from task_types.comprehension.corpus import clean_question
from task_types.comprehension.demo import demo_projects

MODES = ("listening", "reading")
GUIDELINES = """\
## Which arguments did the speaker make?

Each item is a short speech from a debate on a **motion** (for example *"We should ban boxing"*).
Depending on the project you **listen** to the speech or **read** its transcript. Below it is a
list of arguments that are often made on the speaker's side of the debate.

Tick every argument that **the speaker argued**, even in other words, or tick **None** when the
speaker made none of them. An argument counts when the speaker made its point, not when they only
mentioned its topic.

When listening:

- Listen to the speech **once**, preferably without pausing: that is how the study this task
  comes from (Mirkin et al., 2018) asked its annotators to listen.
- The project may be stricter: the page says whether the speech can be paused, sought or
  played again, and whether you can answer only after it has ended.
- Playback that has started counts, even if you reload the page: a speech that plays once
  cannot be started again.
"""


class ComprehensionOptions(PlaybackOptions):
    mode = forms.ChoiceField(
        choices=[("listening", "Listening: annotators hear the speech"),
                 ("reading", "Reading: annotators read the transcript"),
                 ("both", "Both: each annotator is given one of the two, for every item")],
        initial="reading", label="Task-type option: mode",
        help_text="With both, an annotator's mode is fixed for the project (decided from the project and "
                  "the annotator), so that each speech is heard by some annotators and read by others.",
    )
    transcript = forms.ChoiceField(
        choices=[("manual", "Manual transcript"), ("asr", "Automatic (ASR) transcript")], initial="manual",
        label="Reading: transcript shown",
        help_text="The transcript shown in reading mode (the other one when an item lacks it).",
    )

    field_order = ["mode", "transcript", *PLAYBACK_OPTIONS]


class Comprehension(TaskType):
    slug = "comprehension"
    name = "Listening and reading comprehension"
    description = "Which argument titles of the motion, on the speech's side, did the speaker argue (or none)."
    template = "comprehension/item.html"
    default_guidelines = GUIDELINES
    scripts = ("js/listening.js",)
    styles = ("comprehension/comprehension.css",)
    media = ("audio",)
    level = "set"
    # The titles are listed in an order drawn per assignment; answers name them by id.
    shown_order_parts = ("titles",)
    gold_fields = ("titles",)
    first_shown = "the argument title listed first"
    long_rows_use_payload = True
    options_form = ComprehensionOptions
    answer_fields = (
        AnswerField("titles", "choices", "Ids of the argument titles the speaker argued; or [\"none\"] alone."),
        AnswerField("playback", "json", "Listening mode: {\"events\": [{\"type\": play|pause|seek|ended, "
                    "\"t\": position in s, \"at\": ms since the item was shown}], \"heard\": fraction of the "
                    "audio heard (0-1), \"duration\": s}.", required=False),
    )
    metric_fields = ("playback",)
    import_fields = (
        ImportField("id", False, "Item id; default the speech id."),
        ImportField("motion_id", False, "Id of the motion (used to split motions in the machine reference)."),
        ImportField("motion", True, "The motion's text, e.g. `We should ban boxing`."),
        ImportField("speech_id", True, "Id of the speech (or a nested `speech` object with the fields below)."),
        ImportField("speaker", False, "The speaker's name."),
        ImportField("stance", True, "pro or con: the speech's side of the motion."),
        ImportField("audio", False, "Key of the speech's audio file in the project (upload the audio first); "
                    "needed for listening."),
        ImportField("transcript", False, "Manual transcript (transcript or asr_transcript is required)."),
        ImportField("asr_transcript", False, "Automatic transcript."),
        ImportField("sentences", False, "The transcript's sentences: a JSON list (default: split from the transcript)."),
        ImportField("titles", True, "A JSON list of the side's argument titles: "
                    "`[{\"id\": …, \"title\": …, \"text\": full text (optional)}]`."),
        ImportField("gold", False, "Known answer: title ids separated by `|`, or `none`."),
        ImportField("gold_unjudged", False, "Title ids (separated by `|`) the gold does not judge: "
                    "offered to annotators, left out of the gold-based figures."),
    )
    export_columns = ("speech", "motion_id", "stance", "mode", "titles", "none", "n_titles",
                      "heard", "plays", "pauses", "seeks", "ended", "playback_events", "playback_timeline",
                      "clip_duration", "audio_fetched_at", "playback_started_at", "plays_started",
                      "report_received_at", "refused_attempts")

    # Titles are ticked with 1-9 and None with 0 (the item shows the key of each).
    shortcuts = (
        Shortcut("1 … 9", "tick or untick an argument"),
        Shortcut("0", "None of them"),
        Shortcut("p", "play (and pause, where the project allows it)", variants=("listening",)),
        Shortcut("Ctrl+Enter", "submit"),
    )

    # --- items ------------------------------------------------------------------------------

    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        payload, gold = clean_question(record)
        return CleanItem(external_id=str(record.get("id") or payload["speech"]["id"]).strip(),
                         payload=payload, gold=gold)

    def media_keys(self, payload: Mapping[str, Any]) -> list[str]:
        audio = payload.get("speech", {}).get("audio")
        return [audio] if audio else []

    def item_problems(self, payload: Mapping[str, Any], *, options: Mapping[str, Any]) -> dict[str, str]:
        if options.get("mode", "reading") != "reading" and not payload["speech"].get("audio"):
            return {"audio": f"the project's mode is {options.get('mode')}: a speech that is heard needs its audio"}
        return {}

    def option_texts(self, payload: Mapping[str, Any]) -> dict[str, str]:
        return {str(t["id"]): str(t.get("title") or "") for t in payload.get("titles") or ()}

    def group_of(self, payload: Mapping[str, Any]) -> str | None:
        # The titles shown are those of the motion on the speech's side, so both make the group.
        motion = payload.get("motion_id") or payload.get("motion")
        return f"{motion}|{(payload.get('speech') or {}).get('stance', '')}" if motion else None

    def item_columns(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        speech = payload["speech"]
        return {"motion": payload.get("motion_id") or payload["motion"], "stance": speech["stance"],
                "transcript": speech.get("transcript") or speech.get("asr_transcript", ""),
                "sentences": speech.get("sentences", []),
                "titles": [{"id": t["id"], "title": t["title"], "text": t.get("text", "")} for t in payload["titles"]],
                "options": {t["id"]: t["title"] for t in payload["titles"]}}

    def item_summary(self, payload: Mapping[str, Any], *, length: int = 120) -> str:
        speech = payload["speech"]
        head = f"{speech.get('speaker') or speech['id']} ({speech['stance']}), {len(payload['titles'])} titles: "
        return head + shorten(payload["motion"], max(length - len(head), 8))

    # --- presentation -------------------------------------------------------------------------

    def variant(self, *, options: Mapping[str, Any], project_id: int, worker_id: int) -> str:
        mode = options.get("mode", "reading")
        if mode in MODES:
            return mode
        # "both": a stable half of the workers listens, the other half reads.
        digest = hashlib.sha256(f"{project_id}:{worker_id}".encode()).digest()
        return MODES[digest[0] % 2]

    def worker_payload(self, payload: Mapping[str, Any], *, options: Mapping[str, Any], variant: str) -> Mapping[str, Any]:
        """A listener gets no transcript (nor its sentences), a reader no audio key; nobody the
        speech's id, which is the item's id unless the record gives another."""
        hidden = ("id", "transcript", "asr_transcript", "sentences") if variant == "listening" else ("id", "audio")
        speech = {k: v for k, v in payload.get("speech", {}).items() if k not in hidden}
        return {**payload, "speech": speech}

    # --- answers ------------------------------------------------------------------------------

    def clean_answer(self, data: Mapping[str, Any] | AnswerData, *, payload: Mapping[str, Any],
                     context: AnswerContext = NO_CONTEXT) -> CleanAnswer:
        values, errors = AnswerData.wrap(data).read(self.answer_fields)
        known = [str(t["id"]) for t in payload.get("titles", [])]
        chosen = list(dict.fromkeys(values["titles"]))
        problem = choices_problem(chosen, known, required="Tick the arguments the speaker argued, or None.",
                                  clash="None cannot go with arguments: untick None or the arguments.",
                                  noun="argument")
        if problem and "titles" not in errors:
            errors["titles"] = problem
        mode = context.variant or self.variant(options=context.options, project_id=0, worker_id=0)
        metrics: dict[str, Any] = {}
        # A changed answer keeps the playback of the first one: a new report is not taken.
        if mode == "listening" and not context.revising and "playback" not in errors:
            clip = str(payload.get("speech", {}).get("audio") or "")
            problem, stored = playback_check(values["playback"], clip=clip, context=context)
            if problem:
                errors["playback"] = problem
            elif stored is not None:
                metrics["playback"] = stored
        if errors:
            raise AnswerInvalid(errors)
        picked = [t for t in known if t in chosen]  # in the item's order
        return CleanAnswer(answer={"titles": picked, "none": NONE in chosen, "mode": mode}, metrics=metrics)

    def form_values(self, data: Mapping[str, Any] | AnswerData) -> dict[str, Any]:
        fields = AnswerData.wrap(data)
        values, _ = fields.read(self.answer_fields[:1])
        titles = values["titles"]
        return {"titles": [t for t in titles if t != NONE], "none": NONE in titles,
                "playback": playback_form_value(fields.raw("playback"))}

    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        chosen = set(answer.get("titles", []))
        mode = answer.get("mode", "")
        return [{"option": str(t["id"]), "label": int(str(t["id"]) in chosen), "mode": mode}
                for t in payload.get("titles", [])]

    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict[str, Any]:
        p = ctx.payload
        summary = playback_summary(ctx.metrics.get("playback"), refused=ctx.refused)
        return {
            "speech": p["speech"]["id"], "motion_id": p.get("motion_id", ""), "stance": p["speech"]["stance"],
            "mode": answer.get("mode", ""), "titles": "|".join(answer.get("titles", [])),
            "none": bool(answer.get("none")), "n_titles": len(p.get("titles", [])), **summary,
        }

    def label_display(self, answer: Mapping[str, Any]) -> str:
        if answer.get("none"):
            return "None"
        n = len(answer.get("titles", []))
        return f"{n} argument{'s' if n != 1 else ''}"

    def example(self) -> Example:
        titles = [{"id": "t1", "title": "Boxing causes serious brain injuries", "text": ""},
                  {"id": "t2", "title": "Banning boxing would drive it underground", "text": ""}]
        records = [
            {"id": "s1", "motion_id": "m1", "motion": "We should ban boxing",
             "speech": {"id": "s1", "speaker": "rachel", "stance": "pro",
                        "transcript": "Boxers suffer brain damage. Every punch to the head harms the brain."},
             "titles": titles[:1] + [{"id": "t3", "title": "Boxing glorifies violence", "text": ""}], "gold": "t1"},
            {"id": "s2", "motion_id": "m1", "motion": "We should ban boxing",
             "speech": {"id": "s2", "speaker": "james", "stance": "con",
                        "transcript": "A ban only moves fights to places with no doctors and no rules."},
             "titles": titles[1:], "gold": "t2"},
        ]
        return Example(records=records, answer={"titles": ["t1"]}, form=[("titles", "t1")],
                       invalid={"titles": ["t1", "none"]}, invalid_field="titles", options={"mode": "reading"})

    def example_gold(self) -> list[dict[str, Any]]:
        return [{"titles": ["t1"]}, {"titles": ["t1", "t3"]}, {"titles": [NONE]}]

    def demo(self, ctx: DemoContext) -> None:
        demo_projects(self, ctx)

