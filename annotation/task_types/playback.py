"""Playback reports of a listening task: what the client sends, checked against the project's
rules, and summed up for exports. Part of the contract: any task type whose items play a clip
under rules (play once, no pause, no seeking, to the end, unless the project allows them) checks
its reports here, and its page loads the shared player (``js/listening.js``).

The client reports each play, pause, seek and ended event with the position in the audio
(``t``, seconds) and the time since the item was shown (``at``, milliseconds), plus the fraction
of the audio heard (from the browser's played ranges) and the audio's duration. The server cannot
hear what the worker heard: it refuses reports that show a rule was broken, and reports that its
own records contradict (the clip's length read from the file, when the item was handed out,
whether and when the clip was fetched and started for this assignment, how much of it was sent
for the assignment), and keeps every report
with the annotation, each event with its wall-clock time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from django import forms

from annotation.task_types.base import AnswerContext, MediaFacts

EVENT_TYPES = ("play", "pause", "seek", "ended")
PLAYBACK_OPTIONS = ("allow_pause", "allow_seek", "allow_replay", "require_end", "max_plays")


class PlaybackOptions(forms.Form):
    """The listening rules a project sets, which the checks below read from its options: a task
    type's options form inherits them (and puts them after its own fields with ``field_order``)."""

    allow_pause = forms.BooleanField(initial=False, required=False, label="Listening: allow pausing")
    allow_seek = forms.BooleanField(initial=False, required=False, label="Listening: allow seeking",
                                    help_text="Jumping back or ahead in the clip.")
    allow_replay = forms.BooleanField(initial=False, required=False, label="Listening: allow replaying",
                                      help_text="Playing the clip again after it ended.")
    require_end = forms.BooleanField(initial=True, required=False, label="Listening: require the end",
                                     help_text="The answer is taken only once the clip played to its end.")
    max_plays = forms.IntegerField(initial=0, min_value=0, max_value=100, required=False,
                                   label="Listening: plays allowed when replaying",
                                   help_text="With replaying allowed, how many times the clip may be started; 0 for no limit.")

    def clean_max_plays(self) -> int:
        value = self.cleaned_data.get("max_plays")
        return int(value) if value else 0
MAX_EVENTS = 2000
# A pause this close to the end is the browser's own pause as the audio ends, not the worker's.
END_SLACK_SECONDS = 0.75
# Heard to the end without seeking: most of the audio was played, and it took most of its length
# in time (a report that plays 40 s of speech in 2 s was not made by a listener).
MIN_HEARD = 0.9
MIN_LISTENING_TIME = 0.9
# A clip heard to the end reached the player: the bytes of it sent for the assignment (their
# union over every request) cover at least this share of the file.
MIN_SERVED = 0.9


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _parse(raw: Any) -> tuple[dict[str, Any] | None, str]:
    """The report as {"events": [...], "heard": float, "duration": float|None}, or a problem."""
    if not isinstance(raw, Mapping):
        return None, "The playback report must be an object with events, heard and duration."
    events = raw.get("events")
    if not isinstance(events, list):
        return None, "The playback report needs a list of events."
    if len(events) > MAX_EVENTS:
        return None, f"The playback report has more than {MAX_EVENTS} events."
    clean = []
    for i, event in enumerate(events, 1):
        if not isinstance(event, Mapping) or event.get("type") not in EVENT_TYPES:
            return None, f"Playback event {i} must have a type among {', '.join(EVENT_TYPES)}."
        t, at = _number(event.get("t")), _number(event.get("at"))
        if t is None or t < 0 or at is None or at < 0:
            return None, f"Playback event {i} needs a position t and a time at, both numbers of at least 0."
        entry = {"type": event["type"], "t": round(t, 3), "at": round(at)}
        if event["type"] == "seek":
            source = _number(event.get("from"))
            if source is not None and source >= 0:
                entry["from"] = round(source, 3)
        clean.append(entry)
    heard = _number(raw.get("heard"))
    if heard is None or not 0 <= heard <= 1.0001:
        return None, "The playback report needs heard, the fraction of the audio heard (0 to 1)."
    duration = _number(raw.get("duration"))
    if duration is not None and duration <= 0:
        duration = None
    return {"events": clean, "heard": round(min(heard, 1.0), 4), "duration": duration}, ""


def playback_problem(raw: Any, *, options: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """(problem, report): the problem is empty when the report keeps the project's rules."""
    if raw is None:
        return "Play the speech before answering.", None
    report, problem = _parse(raw)
    if report is None:  # _parse gives no report exactly when it gives a problem
        return problem, None
    events = report["events"]
    types = [e["type"] for e in events]
    if any(later["at"] < earlier["at"] for earlier, later in zip(events, events[1:], strict=False)):
        return "The playback events must be in the order they happened (times never decreasing).", None
    if "play" not in types:
        return "Play the speech before answering.", None
    if "ended" in types and types.index("ended") < types.index("play"):
        return "The playback report ends the speech before playing it.", None
    if not options.get("allow_seek") and "seek" in types:
        return "This project does not allow seeking in the speech.", None
    if not options.get("allow_pause"):
        near_end = report["duration"]
        for e in events:
            if e["type"] == "pause" and not (near_end and e["t"] >= near_end - END_SLACK_SECONDS):
                return "This project does not allow pausing the speech.", None
    if not options.get("allow_replay"):
        first_end = types.index("ended") if "ended" in types else None
        if first_end is not None and "play" in types[first_end + 1:]:
            return "This project plays the speech once: it was played again.", None
    if options.get("require_end", True):
        if "ended" not in types:
            return "Listen to the speech to its end before answering.", None
        problem = _heard_to_the_end(report, seeking=bool(options.get("allow_seek")))
        if problem:
            return problem, None
    return "", report


def _heard_to_the_end(report: Mapping[str, Any], *, seeking: bool) -> str:
    """What is wrong with a report that claims the speech was heard to its end, if anything."""
    duration = report["duration"]
    if duration is None:
        return "The playback report needs the audio's duration."
    ended = next(e for e in report["events"] if e["type"] == "ended")
    if ended["t"] < duration - END_SLACK_SECONDS:
        return "The playback report ends the speech before its end."
    if not seeking:
        if report["heard"] < MIN_HEARD:
            return "Listen to the whole speech before answering."
        first_play = next(e for e in report["events"] if e["type"] == "play")
        if ended["at"] - first_play["at"] < MIN_LISTENING_TIME * duration * 1000:
            return "The playback report is shorter than the speech."
    return ""


def playback_summary(report: Mapping[str, Any] | None, *, refused: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Export columns of a stored report (empty values without one), and the answers refused
    before it (when, and why) as JSON."""
    refusals = json.dumps(list(refused), ensure_ascii=False) if refused else ""
    if not report:
        return {**dict.fromkeys(SUMMARY_COLUMNS, ""), "refused_attempts": refusals}
    events = report.get("events", [])
    count = {kind: sum(1 for e in events if e.get("type") == kind) for kind in EVENT_TYPES}
    compact = " ".join(f"{e['type']}@{e['t']}" for e in events)
    timeline = [{k: e[k] for k in ("type", "t", "at", "wall", "from") if k in e} for e in events]
    server = report.get("server") or {}
    return {"heard": report.get("heard", ""), "plays": count["play"], "pauses": count["pause"],
            "seeks": count["seek"], "ended": count["ended"] > 0, "playback_events": compact,
            "playback_timeline": json.dumps(timeline), "clip_duration": server.get("clip_duration") or "",
            "audio_fetched_at": server.get("fetched_at") or "", "playback_started_at": server.get("started_at") or "",
            "plays_started": server.get("plays", ""), "report_received_at": server.get("received_at") or "",
            "refused_attempts": refusals}


SUMMARY_COLUMNS = ("heard", "plays", "pauses", "seeks", "ended", "playback_events", "playback_timeline",
                   "clip_duration", "audio_fetched_at", "playback_started_at", "plays_started", "report_received_at")


# --- what the server saw ------------------------------------------------------------------------

# Seconds a report's claims may run ahead of the server's clock: the report of the start of
# playback and the answer each cross the network once.
NETWORK_SLACK = 1.0


def duration_tolerance(duration: float) -> float:
    """How far a player's length of a clip may be from the length read from the file: decoders
    round differently (MP3 encoder delay and padding, a VBR file's estimate)."""
    return max(0.5, 0.02 * duration)


def plays_allowed(options: Mapping[str, Any]) -> int | None:
    """How many times the speech may be started: once, or with replaying the project's limit
    (None: no limit)."""
    if not options.get("allow_replay"):
        return 1
    return int(options.get("max_plays") or 0) or None


def server_problem(report: Mapping[str, Any], *, facts: MediaFacts | None, options: Mapping[str, Any],
                   handed_out_at: datetime | None, received_at: datetime) -> str:
    """What the server's own records contradict in a report that is consistent in itself: a
    clip never fetched, not received (too few of its bytes sent, see ``served_needed``) or never
    started for this assignment, more starts than the project allows, a length that is not the
    clip's, or more heard than the time since the item was handed out (and since playback
    started) allows. Empty when nothing is."""
    if facts is None or not facts.fetches:
        return "The speech's audio was never loaded for this item, so it cannot have been heard: play it in the item's player."
    problem = _served_problem(report, facts=facts, options=options)
    if problem:
        return problem
    if not facts.plays or facts.first_played_at is None:
        return "The server has no record that the speech was played for this item: play it in the item's player."
    allowed = plays_allowed(options)
    if allowed is not None and facts.plays > allowed:
        return (f"The speech was started {facts.plays} times for this item; this project allows "
                f"{'one play' if allowed == 1 else f'{allowed} plays'}.")
    duration = facts.duration
    claimed = report.get("duration")
    if duration is not None and claimed is not None and abs(claimed - duration) > duration_tolerance(duration):
        return f"The playback report gives the speech's length as {claimed:g} s; the speech lasts {duration:g} s."
    length = duration if duration is not None else claimed
    events = report["events"]
    if length is None or not events:
        return ""
    heard = report["heard"] * length
    slack = duration_tolerance(length) + NETWORK_SLACK
    since_start = (received_at - facts.first_played_at).total_seconds()
    since_handout = (received_at - handed_out_at).total_seconds() if handed_out_at else since_start
    if heard > min(since_start, since_handout) + slack:
        return (f"The playback report claims {heard:.1f} s of the speech heard, but only "
                f"{max(min(since_start, since_handout), 0):.1f} s passed since it was started for this item.")
    last_at = max(e["at"] for e in events) / 1000
    if last_at > since_handout + slack:
        return (f"The playback report's events span {last_at:.1f} s, but only "
                f"{max(since_handout, 0):.1f} s passed since the item was handed out.")
    return ""


def served_needed(report: Mapping[str, Any], *, options: Mapping[str, Any]) -> float:
    """The share of the clip's bytes the server must have sent for the assignment to believe the
    report: MIN_SERVED of the clip when the project requires the end, else of the share heard."""
    return MIN_SERVED * (1.0 if options.get("require_end", True) else float(report.get("heard") or 0))


def _served_problem(report: Mapping[str, Any], *, facts: MediaFacts, options: Mapping[str, Any]) -> str:
    """A report of more listening than the bytes sent for the assignment can hold: a client
    that asked for a byte of the clip and waited its length has not received it."""
    if not facts.size or facts.served is None:  # no size to compare with, or bytes not counted
        return ""
    needed = served_needed(report, options=options)
    share = facts.served / facts.size
    if share >= needed:
        return ""
    return (f"Only {math.floor(share * 100)}% of the audio was sent for this item (at least "
            f"{math.ceil(needed * 100)}% is needed to hear it), so it cannot have been heard: let the item's player "
            "load it and play it.")


def with_timeline(report: Mapping[str, Any], *, facts: MediaFacts | None, handed_out_at: datetime | None,
                  received_at: datetime | None) -> dict[str, Any]:
    """The report as stored: each event with its wall-clock time (the hand-out time plus the
    event's ``at``, a lower bound, since the page is shown after the hand-out) and what the
    server saw of the clip for this assignment."""
    stored = dict(report)
    if handed_out_at is not None:
        stored["events"] = [{**e, "wall": (handed_out_at + timedelta(milliseconds=e["at"])).isoformat()}
                            for e in report["events"]]
    if received_at is not None:
        stored["server"] = {
            "handed_out_at": handed_out_at.isoformat() if handed_out_at else None,
            "received_at": received_at.isoformat(),
            "clip_duration": facts.duration if facts else None,
            "fetched_at": facts.first_fetched_at.isoformat() if facts and facts.first_fetched_at else None,
            "served": round(facts.served / facts.size, 4) if facts and facts.size and facts.served is not None else None,
            "started_at": facts.first_played_at.isoformat() if facts and facts.first_played_at else None,
            "plays": facts.plays if facts else 0,
        }
    return stored


def playback_check(raw: Any, *, clip: str, context: AnswerContext) -> tuple[str, dict[str, Any] | None]:
    """(problem, stored report) of a listening answer's playback report for the clip ``clip``:
    the project's rules first, then, when the server that received the answer checks it (not a
    tool checking an answer on its own), what its records say about the clip and the times."""
    problem, summary = playback_problem(raw, options=context.options)
    facts = context.media.get(clip)
    if not problem and summary is not None and context.received_at is not None:
        problem = server_problem(summary, facts=facts, options=context.options,
                                 handed_out_at=context.handed_out_at, received_at=context.received_at)
    if problem or summary is None:
        return problem, None
    return "", with_timeline(summary, facts=facts, handed_out_at=context.handed_out_at,
                             received_at=context.received_at)


def playback_form_value(raw: Any) -> str:
    """A playback report as it goes back into the form (JSON text), so that a refusal of another
    field does not make the worker hear the clip again, nor lets them."""
    if raw is None:
        return ""
    return raw if isinstance(raw, str) else json.dumps(raw)
