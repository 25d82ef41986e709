"""Rubric scoring of spoken responses (content accuracy on a 1–4 scale).

An item is one spoken response to a prompt (a picture narration or a listen-and-summarise
task). The rater hears it, under the project's playback rules, or reads its transcript (the
automatic or the manual one, a project option), reads the rubric and gives one score from 1 to 4,
with an optional comment. Listening reports are checked by the contract's playback rules
(``annotation.task_types.playback``) against what the server saw of the clip, as in every type
whose items play a clip. A listener never receives the transcripts, nobody the references.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

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
    ImportField,
    Shortcut,
    TaskType,
    shorten,
)
from annotation.task_types.playback import (
    PLAYBACK_OPTIONS,
    PlaybackOptions,
    playback_check,
    playback_form_value,
    playback_summary,
)
from task_types.response_scoring.corpus import PROMPT_TYPES, clean_response

RUBRIC = (
    ("4", "Full and appropriate to the task; minor errors may occur."),
    ("3", "Mostly complete and appropriate, but supporting details and elaboration are limited or lacking."),
    ("2", "Limited to some (or all) of the main facts, presented one by one; key information may be omitted or inaccurate."),
    ("1", "Incomplete, and/or lacks development."),
)
SCORES = tuple(sorted(value for value, _ in RUBRIC))
COMMENT_LIMIT = 2000
GUIDELINES = """\
## How accurate is the content of the response?

Each item is a spoken response to a prompt: the speaker either told the story shown by a
series of pictures, or summarised what a teacher or students said. Depending on the project you
**listen** to the response or **read** its transcript.

Score the **content** only (not pronunciation, fluency or grammar) on the rubric:

- **4** — content is full and appropriate to the task; minor errors may occur.
- **3** — content is mostly complete and appropriate, but supporting details and elaboration are
  limited or lacking.
- **2** — mostly limited to some (or all) of the main facts, presented one by one; some key
  information may be omitted or inaccurate.
- **1** — content is incomplete and/or lacks development.

A comment is optional. When listening, the page says whether the response can be paused, sought
or played again; playback that has started counts, even after a reload.
"""


class ResponseScoringOptions(PlaybackOptions):
    presentation = forms.ChoiceField(
        choices=[("reading", "Transcript: raters read the response"), ("listening", "Audio: raters hear the response")],
        initial="reading", label="Task-type option: presentation",
    )
    transcript = forms.ChoiceField(
        choices=[("asr", "Automatic (ASR) transcript"), ("manual", "Manual transcript")], initial="manual",
        label="Reading: transcript shown", help_text="The other one is shown when a response lacks it.",
    )

    field_order = ["presentation", "transcript", *PLAYBACK_OPTIONS]


def shown_transcript(response: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[str, str]:
    """(which, text): the transcript the project shows, or the other one when it is missing."""
    order = ("asr", "manual") if options.get("transcript") == "asr" else ("manual", "asr")
    fields = {"asr": "asr_transcript", "manual": "transcript"}
    for which in order:
        if response.get(fields[which]):
            return which, response[fields[which]]
    return "", ""


class ResponseScoring(TaskType):
    slug = "response_scoring"
    name = "Rubric scoring of spoken responses"
    description = "Score the content accuracy of a spoken response to a prompt on a 1–4 rubric."
    template = "response_scoring/item.html"
    default_guidelines = GUIDELINES
    scripts = ("js/listening.js",)
    styles = ("response_scoring/response_scoring.css",)
    media = ("audio",)
    level = "ordinal"
    categories = tuple((value, f"{value}: {text}") for value, text in sorted(RUBRIC))
    gold_fields = ("score",)
    options_form = ResponseScoringOptions
    commands = ("import_responses",)
    urls = "task_types.response_scoring.urls"
    answer_fields = (
        AnswerField("score", "choice", "The rubric score, 1 to 4."),
        AnswerField("comment", "text", "An optional comment.", required=False),
        AnswerField("playback", "json", "Listening: the playback report, as in the comprehension task "
                    "({\"events\": [...], \"heard\": 0-1, \"duration\": s}).", required=False),
    )
    metric_fields = ("playback",)
    import_fields = (
        ImportField("id", False, "Item id; default the response id."),
        ImportField("response_id", True, "Id of the response."),
        ImportField("prompt_id", True, "Id of the prompt."),
        ImportField("prompt_type", True, "narration (picture narration) or summary (listen and summarise)."),
        ImportField("prompt", True, "The prompt's text as the speaker got it."),
        ImportField("references", False, "The prompt's reference responses: a JSON list of texts or of "
                    "`{\"id\": …, \"text\": …}`, in order (the first is base ROUGE's)."),
        ImportField("speaker", False, "Id of the speaker."),
        ImportField("audio", False, "Key of the response's audio file in the project (needed for listening)."),
        ImportField("asr_transcript", False, "Automatic transcript."),
        ImportField("transcript", False, "Manual transcript (audio, asr_transcript or transcript is required)."),
    )
    export_columns = ("response", "prompt_id", "prompt_type", "speaker", "mode", "score", "comment",
                      "heard", "plays", "pauses", "seeks", "ended", "playback_events", "playback_timeline",
                      "clip_duration", "audio_fetched_at", "playback_started_at", "plays_started",
                      "report_received_at", "refused_attempts")
    shortcuts = (
        Shortcut("1 … 4", "score"),
        Shortcut("p", "play (and pause, where the project allows it)", variants=("listening",)),
        Shortcut("Ctrl+Enter", "submit"),
    )

    # --- items ------------------------------------------------------------------------------

    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        external_id, payload = clean_response(record)
        return CleanItem(external_id=external_id, payload=payload)

    def media_keys(self, payload: Mapping[str, Any]) -> list[str]:
        audio = payload.get("response", {}).get("audio")
        return [audio] if audio else []

    def item_problems(self, payload: Mapping[str, Any], *, options: Mapping[str, Any]) -> dict[str, str]:
        response = payload["response"]
        if options.get("presentation") == "listening" and not response.get("audio"):
            return {"audio": "the project's raters listen: a response needs its audio"}
        if options.get("presentation", "reading") == "reading" and not shown_transcript(response, options)[1]:
            return {"transcript": "the project's raters read: a response needs a transcript"}
        return {}

    def group_of(self, payload: Mapping[str, Any]) -> str | None:
        return (payload.get("prompt") or {}).get("id") or None

    def item_columns(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        response = payload["response"]
        return {"response": response["id"], "prompt_id": payload["prompt"]["id"],
                "prompt_type": payload["prompt"]["type"], "speaker": response.get("speaker", ""),
                "asr_transcript": response.get("asr_transcript", ""), "transcript": response.get("transcript", ""),
                "references": payload.get("references", [])}

    def item_summary(self, payload: Mapping[str, Any], *, length: int = 120) -> str:
        response = payload["response"]
        head = f"{response['id']} ({PROMPT_TYPES[payload['prompt']['type']]}, {payload['prompt']['id']}): "
        text = response.get("transcript") or response.get("asr_transcript") or "audio only"
        return head + shorten(text, max(length - len(head), 8))

    # --- presentation -------------------------------------------------------------------------

    def variant(self, *, options: Mapping[str, Any], project_id: int, worker_id: int) -> str:
        return "listening" if options.get("presentation") == "listening" else "reading"

    def worker_payload(self, payload: Mapping[str, Any], *, options: Mapping[str, Any], variant: str) -> Mapping[str, Any]:
        """A listener gets the audio and no transcript; a reader the project's transcript only.
        Nobody gets the references, which the automatic scores use, nor the response's id, which
        is the item's id unless the record gives another."""
        response = {k: v for k, v in payload.get("response", {}).items() if k != "id"}
        if variant == "listening":
            kept = {k: v for k, v in response.items() if k not in ("asr_transcript", "transcript")}
        else:
            which, text = shown_transcript(response, options)
            kept = {k: v for k, v in response.items() if k not in ("audio", "asr_transcript", "transcript")}
            kept.update({"shown": text, "shown_kind": which})
        # The rubric travels with the item, so that every page and API answer shows it.
        return {"prompt": payload.get("prompt", {}), "response": kept, "rubric": [list(r) for r in RUBRIC]}

    # --- answers ------------------------------------------------------------------------------

    def clean_answer(self, data: Mapping[str, Any] | AnswerData, *, payload: Mapping[str, Any],
                     context: AnswerContext = NO_CONTEXT) -> CleanAnswer:
        values, errors = AnswerData.wrap(data).read(self.answer_fields)
        if "score" not in errors and values["score"] not in SCORES:
            errors["score"] = "Choose one score from 1 to 4."
        comment = (values.get("comment") or "").strip()
        if len(comment) > COMMENT_LIMIT:
            errors["comment"] = f"A comment has at most {COMMENT_LIMIT:,} characters."
        mode = context.variant or self.variant(options=context.options, project_id=0, worker_id=0)
        metrics: dict[str, Any] = {}
        if mode == "listening" and not context.revising and "playback" not in errors:
            clip = str(payload.get("response", {}).get("audio") or "")
            problem, stored = playback_check(values["playback"], clip=clip, context=context)
            if problem:
                errors["playback"] = problem
            elif stored is not None:
                metrics["playback"] = stored
        if errors:
            raise AnswerInvalid(errors)
        return CleanAnswer(answer={"score": values["score"], "comment": comment, "mode": mode}, metrics=metrics)

    def form_values(self, data: Mapping[str, Any] | AnswerData) -> dict[str, Any]:
        fields = AnswerData.wrap(data)
        values, _ = fields.read(self.answer_fields[:2])
        return {"score": values.get("score"), "comment": values.get("comment") or "",
                "playback": playback_form_value(fields.raw("playback"))}

    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"label": answer["score"], "mode": answer.get("mode", "")}]

    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict[str, Any]:
        p = ctx.payload
        return {"response": p["response"]["id"], "prompt_id": p["prompt"]["id"], "prompt_type": p["prompt"]["type"],
                "speaker": p["response"].get("speaker", ""), "mode": answer.get("mode", ""),
                "score": answer.get("score", ""), "comment": answer.get("comment", ""),
                **playback_summary(ctx.metrics.get("playback"), refused=ctx.refused)}

    def gold_choices(self, payload: Mapping[str, Any], name: str) -> list[str] | None:
        return [value for value, _ in sorted(RUBRIC)]

    def label_display(self, answer: Mapping[str, Any]) -> str:
        return f"score {answer.get('score', '?')}"

    def example(self) -> Example:
        prompt = {"prompt_id": "p1", "prompt_type": "summary",
                  "prompt": "Listen to the teacher and summarise what she says about bees.",
                  "references": ["Bees carry pollen between flowers, so plants can make seeds.",
                                 "The teacher explains that bees pollinate flowers and help plants reproduce."]}
        records = [
            {**prompt, "response_id": "r1", "speaker": "s1",
             "transcript": "The teacher says bees carry pollen from flower to flower so plants make seeds."},
            {**prompt, "response_id": "r2", "speaker": "s2", "asr_transcript": "bees are insects they fly"},
        ]
        return Example(records=records, answer={"score": "3", "comment": ""}, form=[("score", "3")],
                       invalid={"score": "5"}, invalid_field="score", options={"presentation": "reading"})

    def example_gold(self) -> list[dict[str, Any]]:
        return [{"score": value} for value, _ in sorted(RUBRIC)]

    def demo(self, ctx: DemoContext) -> None:
        from task_types.response_scoring.demo import demo_project

        demo_project(self, ctx)
