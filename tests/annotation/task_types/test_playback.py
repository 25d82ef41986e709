"""The contract's playback rules on their own: a listening report checked against a project's
rules and against what the server saw of the clip (any type whose items play a clip uses them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from annotation.task_types.base import MediaFacts
from annotation.task_types.playback import (
    duration_tolerance,
    playback_problem,
    playback_summary,
    plays_allowed,
    server_problem,
    with_timeline,
)

STRICT = {"allow_pause": False, "allow_seek": False, "allow_replay": False, "require_end": True}
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def played(*events, heard=1.0, duration=30.0):
    out, at, position = [], 0, 0.0
    for kind, t in events:
        at += round(max(t - position, 0) * 1000) + 1
        position = t
        out.append({"type": kind, "t": t, "at": at})
    return {"events": out, "heard": heard, "duration": duration}


WHOLE = played(("play", 0), ("ended", 30.0))


@pytest.mark.parametrize(("report", "options", "message"), [
    (None, STRICT, "Play the speech before answering"),
    (played(("play", 0)), STRICT, "to its end"),
    (played(("play", 0), ("pause", 10.0), ("play", 10.0), ("ended", 30.0)), STRICT, "does not allow pausing"),
    (played(("play", 0), ("seek", 25.0), ("ended", 30.0)), STRICT, "does not allow seeking"),
    (played(("play", 0), ("ended", 30.0), ("play", 0.0), ("ended", 30.0)), STRICT, "plays the speech once"),
    (played(("play", 0), ("ended", 30.0), heard=0.5), STRICT, "Listen to the whole speech"),
])
def test_a_report_that_breaks_a_rule_names_it(report, options, message):
    problem, kept = playback_problem(report, options=options)
    assert message in problem and kept is None


def test_a_whole_listen_keeps_the_rules_and_what_a_project_allows_is_taken():
    assert playback_problem(WHOLE, options=STRICT) == ("", WHOLE)
    paused = played(("play", 0), ("pause", 10.0), ("play", 10.0), ("ended", 30.0))
    assert playback_problem(paused, options={**STRICT, "allow_pause": True})[0] == ""


def test_the_server_s_records_decide_what_a_report_cannot_say():
    assert duration_tolerance(43.076) == pytest.approx(0.86152) and duration_tolerance(3.0) == 0.5
    assert plays_allowed(STRICT) == 1 and plays_allowed({"allow_replay": True, "max_plays": 3}) == 3
    assert plays_allowed({"allow_replay": True}) is None
    handed = NOW - timedelta(seconds=40)
    started = NOW - timedelta(seconds=35)

    def problem(facts):
        return server_problem(WHOLE, facts=facts, options=STRICT, handed_out_at=handed, received_at=NOW)

    assert "never loaded" in problem(None)
    assert "no record that the speech was played" in problem(MediaFacts("a.mp3", 30.0, fetches=1))
    assert "started 2 times" in problem(MediaFacts("a.mp3", 30.0, 1, started, 2, started))
    assert "lasts 20 s" in problem(MediaFacts("a.mp3", 20.0, 1, started, 1, started))
    late = NOW - timedelta(seconds=5)
    assert "only 5.0 s passed" in problem(MediaFacts("a.mp3", 30.0, 1, late, 1, late))
    fine = MediaFacts("a.mp3", 30.0, 1, started, 1, started)
    assert problem(fine) == ""
    stored = with_timeline(WHOLE, facts=fine, handed_out_at=handed, received_at=NOW)
    assert stored["server"]["plays"] == 1 and stored["events"][0]["wall"].startswith("2026-01-01T11:59:20")
    summary = playback_summary(stored)
    assert summary["plays"] == 1 and summary["ended"] is True and summary["clip_duration"] == 30.0


def test_a_clip_heard_needs_most_of_its_bytes_sent():
    handed, started = NOW - timedelta(seconds=40), NOW - timedelta(seconds=35)

    def problem(served, options=STRICT, report=WHOLE):
        facts = MediaFacts("a.mp3", 30.0, 1, started, 1, started, size=1000, served=served)
        return server_problem(report, facts=facts, options=options, handed_out_at=handed, received_at=NOW)

    assert "Only 0% of the audio was sent for this item (at least 90% is needed" in problem(1)
    assert "Only 89% " in problem(899)
    assert problem(900) == "" and problem(1000) == ""
    # Without the end required, the bytes need only cover what the report says was heard.
    half = played(("play", 0), ("pause", 15.0), heard=0.5)
    loose = {**STRICT, "require_end": False, "allow_pause": True}
    assert "at least 45% is needed" in problem(400, loose, half) and problem(450, loose, half) == ""
    # A file whose size the server does not know is not checked (nothing to compare with).
    unknown = MediaFacts("a.mp3", 30.0, 1, started, 1, started)
    assert server_problem(WHOLE, facts=unknown, options=STRICT, handed_out_at=handed, received_at=NOW) == ""
