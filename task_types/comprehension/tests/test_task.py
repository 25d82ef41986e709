"""Listening and reading comprehension: questions, the exclusive None, the playback rules, the
variant of each worker, and the IBM Debater corpus as questions."""

from __future__ import annotations

import json

import pytest
from django.http import QueryDict

from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerContext, AnswerInvalid, FieldError
from task_types.comprehension.corpus import (
    fixture_questions,
    ibm_questions,
    questions_from_corpus,
)

TASK = get_task_type("comprehension")
RULES = TASK.clean_options({"mode": "listening"})  # the defaults: once, no pause, no seek, to the end
LISTENING = AnswerContext(options=RULES, variant="listening")
READING = AnswerContext(options=TASK.clean_options({"mode": "reading"}), variant="reading")


def payload(titles=("t1", "t2", "t3")):
    record = {"id": "s1", "motion_id": "m1", "motion": "We should ban boxing",
              "speech": {"id": "s1", "speaker": "rachel", "stance": "pro", "audio": "s1.mp3",
                         "transcript": "Boxing harms the brain. It glorifies violence."},
              "titles": [{"id": t, "title": f"title {t}"} for t in titles]}
    return TASK.clean_item(record).payload


def played(*events, heard=1.0, duration=30.0):
    """A report of ``events`` (type, position), timed as a listener at normal speed makes them:
    the time moves on by the audio played since the previous event."""
    out, at, position = [], 0, 0.0
    for kind, t in events:
        at += round(max(t - position, 0) * 1000) + 1
        position = t
        out.append({"type": kind, "t": t, "at": at})
    return {"events": out, "heard": heard, "duration": duration}


WHOLE = played(("play", 0), ("ended", 30.0))


def form(**fields) -> QueryDict:
    q = QueryDict(mutable=True)
    for name, values in fields.items():
        for v in values if isinstance(values, list) else [values]:
            q.appendlist(name, v)
    return q


# --- the None rule ---------------------------------------------------------------------------------

def test_titles_or_none_and_never_both():
    p = payload()
    assert TASK.clean_answer({"titles": ["t3", "t1"]}, payload=p, context=READING).answer == {
        "titles": ["t1", "t3"], "none": False, "mode": "reading"}
    assert TASK.clean_answer({"titles": ["none"]}, payload=p, context=READING).answer == {
        "titles": [], "none": True, "mode": "reading"}
    for bad, message in ((["t1", "none"], "None cannot go with arguments"), ([], "Tick the arguments"),
                         (["t9"], "Unknown argument id: t9"), ("t1 t2", "Unknown argument id")):
        with pytest.raises(AnswerInvalid) as exc:
            TASK.clean_answer({"titles": bad}, payload=p, context=READING)
        assert message in exc.value.errors["titles"]
    with pytest.raises(AnswerInvalid, match="list of choices"):
        TASK.clean_answer({"titles": {"t1": True}}, payload=p, context=READING)


def test_form_fields_and_json_give_the_same_answer():
    p = payload()
    from_form = TASK.clean_answer(form(titles=["t2", "t1"]), payload=p, context=READING)
    from_json = TASK.clean_answer({"titles": ["t2", "t1"]}, payload=p, context=READING)
    assert from_form == from_json
    assert TASK.form_values(form(titles=["t2", "none"])) == {"titles": ["t2"], "none": True, "playback": ""}
    assert json.loads(TASK.form_values({"titles": [], "playback": WHOLE})["playback"]) == WHOLE


def test_long_rows_are_one_binary_question_per_title():
    p = payload()
    answer = TASK.clean_answer({"titles": ["t2"]}, payload=p, context=READING).answer
    assert TASK.long_rows(payload=p, answer=answer) == [
        {"option": "t1", "label": 0, "mode": "reading"}, {"option": "t2", "label": 1, "mode": "reading"},
        {"option": "t3", "label": 0, "mode": "reading"}]
    none = TASK.clean_answer({"titles": ["none"]}, payload=p, context=READING).answer
    assert [r["label"] for r in TASK.long_rows(payload=p, answer=none)] == [0, 0, 0]


# --- playback rules --------------------------------------------------------------------------------

@pytest.mark.parametrize(("report", "options", "message"), [
    (None, {}, "Play the speech before answering"),
    (played(("play", 0)), {}, "to its end"),
    (played(("play", 0), ("pause", 10.0), ("play", 10.0), ("ended", 30.0)), {}, "does not allow pausing"),
    (played(("play", 0), ("seek", 25.0), ("ended", 30.0)), {}, "does not allow seeking"),
    (played(("play", 0), ("ended", 30.0), ("play", 0.0), ("ended", 30.0)), {}, "plays the speech once"),
    ({"events": "all of it", "heard": 1}, {}, "list of events"),
    (played(("rewind", 0)), {}, "must have a type"),
    (played(("play", -3)), {}, "numbers of at least 0"),
    ({"events": [], "heard": 7}, {}, "fraction of the audio heard"),
    ("not json at all", {}, "JSON document"),
    ([1, 2], {}, "must be an object"),
    # Reports that no listener makes: out of order, ended before the end or before playing,
    # most of the speech unheard, or heard faster than it lasts.
    ({**WHOLE, "events": WHOLE["events"][::-1]}, {}, "in the order they happened"),
    (played(("play", 0), ("ended", 12.0)), {}, "before its end"),
    (played(("play", 0), ("ended", 30.0), heard=0.5), {}, "Listen to the whole speech"),
    ({"events": [{"type": "play", "t": 0, "at": 0}, {"type": "ended", "t": 30.0, "at": 2000}], "heard": 1,
      "duration": 30.0}, {}, "shorter than the speech"),
    ({**WHOLE, "duration": None}, {}, "needs the audio's duration"),
])
def test_a_submit_that_breaks_a_playback_rule_is_refused(report, options, message):
    context = AnswerContext(options={**RULES, **options}, variant="listening")
    data = {"titles": ["t1"]} if report is None else {"titles": ["t1"], "playback": report}
    with pytest.raises(AnswerInvalid) as exc:
        TASK.clean_answer(data, payload=payload(), context=context)
    assert message in exc.value.errors["playback"]


@pytest.mark.parametrize(("report", "options"), [
    (WHOLE, {}),
    # The browser's own pause as the audio ends is not a pause.
    (played(("play", 0), ("pause", 29.8), ("ended", 30.0)), {}),
    (played(("play", 0), ("pause", 10.0), ("play", 10.0), ("ended", 30.0)), {"allow_pause": True}),
    (played(("play", 0), ("seek", 25.0), ("ended", 30.0), heard=0.2), {"allow_seek": True}),
    (played(("play", 0), ("ended", 30.0), ("play", 0.0), ("ended", 30.0)), {"allow_replay": True}),
    (played(("play", 0), ("pause", 12.0), heard=0.4), {"allow_pause": True, "require_end": False}),
])
def test_what_the_project_allows_is_accepted_and_recorded(report, options):
    context = AnswerContext(options={**RULES, **options}, variant="listening")
    clean = TASK.clean_answer({"titles": ["t1"], "playback": report}, payload=payload(), context=context)
    assert clean.metrics["playback"]["events"][0]["type"] == "play"
    assert clean.metrics["playback"]["heard"] == report["heard"]


def test_a_form_sends_the_report_as_json_text():
    clean = TASK.clean_answer(form(titles="t1", playback=json.dumps(WHOLE)), payload=payload(), context=LISTENING)
    assert clean.answer["mode"] == "listening" and len(clean.metrics["playback"]["events"]) == 2
    with pytest.raises(AnswerInvalid, match="JSON document"):
        TASK.clean_answer(form(titles="t1", playback="{not json"), payload=payload(), context=LISTENING)


def test_reading_mode_needs_no_playback_and_a_change_keeps_the_first_one():
    assert TASK.clean_answer({"titles": ["t1"]}, payload=payload(), context=READING).metrics == {}
    changing = AnswerContext(options=RULES, variant="listening", revising=True)
    assert TASK.clean_answer({"titles": ["t2"]}, payload=payload(), context=changing).metrics == {}
    # A report sent with a change is not taken: the first answer's playback stands.
    forged = {"events": [{"type": "seek", "t": 5, "at": 1e25}], "heard": 0}
    assert TASK.clean_answer({"titles": ["t2"], "playback": forged}, payload=payload(), context=changing).metrics == {}


def test_both_modes_split_workers_stably():
    options = TASK.clean_options({"mode": "both"})
    modes = [TASK.variant(options=options, project_id=7, worker_id=w) for w in range(200)]
    assert set(modes) == {"listening", "reading"} and 70 < modes.count("listening") < 130
    assert modes == [TASK.variant(options=options, project_id=7, worker_id=w) for w in range(200)]
    assert TASK.variant(options=TASK.clean_options({"mode": "listening"}), project_id=1, worker_id=1) == "listening"


# --- items and the corpus ----------------------------------------------------------------------------

def test_item_records_name_the_bad_field():
    good = {"motion": "M", "speech_id": "s", "stance": "pro", "transcript": "T.",
            "titles": json.dumps([{"id": "a", "title": "A"}])}
    assert TASK.clean_item(good).payload["speech"]["sentences"] == ["T."]
    for change, field in (({"stance": "maybe"}, "stance"), ({"titles": "[]"}, "titles"),
                          ({"titles": '[{"id": "none", "title": "x"}]'}, "titles[1].id"),
                          ({"titles": '[{"id": "a"}]'}, "titles[1].title"), ({"gold": "zz"}, "gold"),
                          ({"transcript": ""}, "transcript"), ({"titles": "{"}, "titles"),
                          ({"titles": [{"id": "a|b", "title": "A"}]}, "titles[1].id"),
                          ({"titles": [{"id": "x" * 201, "title": "A"}]}, "titles[1].id"),
                          ({"titles": [{"id": True, "title": "A"}]}, "titles[1].id")):
        with pytest.raises(FieldError) as exc:
            TASK.clean_item({**good, **change})
        assert exc.value.field == field
    assert TASK.clean_item({**good, "gold": "none"}).gold == []
    assert TASK.clean_item({**good, "gold": "a"}).gold == ["a"]
    assert TASK.media_keys(TASK.clean_item({**good, "audio": "s.mp3"}).payload) == ["s.mp3"]


def test_questions_take_every_title_of_the_motion_on_the_speech_side():
    speeches = [{"id": "p", "motion_id": "1", "motion": "M", "stance": "pro", "transcript": "x"},
                {"id": "c", "motion_id": "1", "motion": "M", "stance": "con", "transcript": "y"},
                {"id": "other", "motion_id": "2", "motion": "N", "stance": "pro", "transcript": "z"}]
    titles = [{"id": "a", "motion_id": "1", "stance": "pro", "title": "A"},
              {"id": "b", "motion_id": "1", "stance": "pro", "title": "B"},
              {"id": "c1", "motion_id": "1", "stance": "con", "title": "C"}]
    records = questions_from_corpus(speeches, titles)
    assert [(r["id"], [t["id"] for t in r["titles"]]) for r in records] == [("p", ["a", "b"]), ("c", ["c1"])]


def test_the_built_in_clips_are_small_and_every_question_is_valid():
    records = fixture_questions()
    assert len(records) == 4
    for r in records:
        item = TASK.clean_item(r)
        assert item.gold and set(item.gold) <= {t["id"] for t in item.payload["titles"]}
    from task_types.comprehension.corpus import FIXTURES

    assert sum(p.stat().st_size for p in FIXTURES.glob("*.mp3")) < 3 * 1024 * 1024


@pytest.mark.shared_data
def test_the_ibm_dataset_as_questions(shared_data):
    records = ibm_questions(shared_data / "ibm_recorded_debating_v4")
    assert len(records) == 150 and len({r["motion_id"] for r in records}) == 49
    items = [TASK.clean_item(r) for r in records]
    # 254 (speech, title) pairs carry sentence votes; offering every title of the side gives 332.
    assert sum(len(i.payload["titles"]) for i in items) == 332
    # Every title of a question is on the speech's side: no title is offered on both sides.
    side = {}
    for i in items:
        for t in i.payload["titles"]:
            assert side.setdefault(t["id"], i.payload["speech"]["stance"]) == i.payload["speech"]["stance"]


# --- the pages -------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_a_listener_changes_an_answer_without_hearing_the_speech_again(client, media_root):
    import io

    from annotation.importers import ParsedItem
    from annotation.models import Annotation, Assignment
    from annotation.services import items_import
    from annotation.services.media.files import media_import_file
    from task_types.comprehension.tests.factories import heard_on_server
    from tests.factories import ProjectFactory, UserFactory
    from tests.support import audio

    project = ProjectFactory(task_type="comprehension", redundancy=1, options=TASK.clean_options({"mode": "listening"}))
    clip = audio.wav(30 * 8000)  # as long as the reports below say
    media_import_file(project=project, data=io.BytesIO(clip), name="s1.wav", size=len(clip), key="s1.mp3")
    record = {"id": "s1", "motion": "M", "speech": {"id": "s1", "stance": "pro", "audio": "s1.mp3", "transcript": "x"},
              "titles": [{"id": "t1", "title": "A"}, {"id": "t2", "title": "B"}]}
    items_import(project=project, parsed=[ParsedItem(1, TASK.clean_item(record))])
    client.force_login(UserFactory())
    page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    assert "data-player" in page and f"/projects/{project.slug}/annotate/{Assignment.objects.get().pk}/media/" in page
    assert "s1.mp3" not in page
    submit = page.split('hx-post="')[1].split('"')[0]
    # Skipping the audio is refused by the server too, naming the field.
    refused = client.post(submit, {"titles": ["t1"]}, HTTP_HX_REQUEST="true").content.decode()
    assert "Play the speech before answering." in refused and not Annotation.objects.exists()
    heard_on_server(Assignment.objects.get(), "s1.mp3")
    client.post(submit, {"titles": ["t1"], "playback": json.dumps(WHOLE)}, HTTP_HX_REQUEST="true")
    annotation = Annotation.objects.get()
    edit = client.get(f"/projects/{project.slug}/annotate/{annotation.assignment_id}/edit/").content.decode()
    assert 'data-testid="heard-before"' in edit and "data-player" not in edit
    client.post(f"/projects/{project.slug}/annotate/{annotation.assignment_id}/revise/",
                {"titles": ["t2"], "version": "1"}, HTTP_HX_REQUEST="true")
    annotation.refresh_from_db()
    assert annotation.answer["titles"] == ["t2"] and annotation.version == 2
    # The playback of the first answer stays with the annotation.
    assert [e["type"] for e in annotation.client["metrics"]["playback"]["events"]] == ["play", "ended"]


@pytest.mark.django_db
def test_a_listening_project_refuses_speeches_without_audio_or_with_audio_it_lacks():
    from annotation.importers import ImportFailed, ParsedItem
    from annotation.services import items_import
    from tests.factories import ProjectFactory

    record = {"id": "s1", "motion": "M", "speech": {"id": "s1", "stance": "pro", "transcript": "x"},
              "titles": [{"id": "t1", "title": "A"}]}
    listening = ProjectFactory(task_type="comprehension", options=TASK.clean_options({"mode": "both"}))
    with pytest.raises(ImportFailed) as exc:
        items_import(project=listening, parsed=[ParsedItem(7, TASK.clean_item(record))])
    assert [(e.line, e.field) for e in exc.value.errors] == [(7, "audio")]
    with_audio = {**record, "speech": {**record["speech"], "audio": "s1.mp3"}}
    with pytest.raises(ImportFailed) as exc:
        items_import(project=listening, parsed=[ParsedItem(3, TASK.clean_item(with_audio))])
    assert [(e.line, e.field) for e in exc.value.errors] == [(3, "media")] and "'s1.mp3'" in exc.value.errors[0].message
    assert not listening.items.exists()
    reading = ProjectFactory(task_type="comprehension", options=TASK.clean_options({"mode": "reading"}))
    assert items_import(project=reading, parsed=[ParsedItem(1, TASK.clean_item(record))]).created == 1


@pytest.mark.django_db
def test_a_csv_corpus_becomes_an_import_file_the_project_takes(tmp_path, capsys):
    from annotation.importers import parse_items
    from annotation.services import items_import
    from task_types.comprehension.cli import main
    from tests.factories import ProjectFactory

    (tmp_path / "speeches.csv").write_text(
        "id,motion_id,motion,speaker,stance,audio,transcript,asr_transcript,sentences\n"
        's1,1,We should ban boxing,rachel,pro,,"Boxing harms the brain. It glorifies violence.",,\n'
        's2,1,We should ban boxing,james,con,,"A ban drives it underground.",asr text,"[""A ban drives it underground.""]"\n'
        "s3,2,We should ban zoos,kim,pro,,Zoos confine animals.,,\n", encoding="utf-8")
    (tmp_path / "titles.json").write_text(json.dumps([
        {"id": "t1", "motion_id": "1", "stance": "pro", "title": "boxing harms the brain"},
        {"id": "t2", "motion_id": "1", "stance": "pro", "title": "boxing glorifies violence"},
        {"id": "t3", "motion_id": "1", "stance": "con", "title": "a ban drives boxing underground"}]), encoding="utf-8")
    assert main(["corpus", str(tmp_path / "speeches.csv"), str(tmp_path / "titles.json")]) == 0
    lines = capsys.readouterr().out
    project = ProjectFactory(task_type="comprehension", options=TASK.clean_options({"mode": "reading"}))
    parsed = parse_items(lines.encode(), fmt="jsonl", task_type=TASK)
    assert items_import(project=project, parsed=parsed).created == 2  # s3's motion has no titles
    s1, s2 = project.items.order_by("position")
    assert [t["id"] for t in s1.payload["titles"]] == ["t1", "t2"] and s1.payload["speech"]["sentences"] == [
        "Boxing harms the brain.", "It glorifies violence."]
    assert s2.payload["speech"]["asr_transcript"] == "asr text" and [t["id"] for t in s2.payload["titles"]] == ["t3"]
