"""Counter-speech selection: the question builder's rules, exactly one choice with reasons, the
gold kept out of the payload, the bonus per correct answer, and the IBM speeches as questions."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.http import QueryDict

from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid, FieldError
from task_types.counter_speech.corpus import build_questions, ibm_speeches

TASK = get_task_type("counter_speech")


def speech(sid, speaker, stance, *, motion="m1", counters="", kind=""):
    return {"id": sid, "motion_id": motion, "motion": f"motion {motion}", "speaker": speaker, "stance": stance,
            "counters": counters, "counter_kind": kind, "transcript": f"a speech by {speaker}"}


CORPUS = [
    speech("p1", "ann", "pro"),
    speech("p2", "bob", "pro"),
    speech("c1", "cat", "con", counters="p1", kind="explicit"),
    speech("c2", "dan", "con", counters="p2", kind="implicit"),
    speech("c3", "ann", "con"),  # by p1's own speaker: never a candidate of p1
    speech("c4", "eve", "con"),
    speech("c5", "fay", "con"),
    speech("c6", "gus", "con"),
    speech("c7", "hal", "con"),
    speech("p3", "ivy", "pro", motion="m2"),  # no counter on its motion
    speech("c8", "jon", "con", motion="m2"),
]


def shown(record):
    """The corpus ids of a question's candidates, in the order shown, and of its true counter."""
    sources = record["gold"]["sources"]
    return [sources[c["id"]] for c in record["candidates"]], sources[record["gold"]["counters"][0]]


def test_builder_rules():
    records, report = build_questions(CORPUS, seed=3)
    by_speech = {r["speech"]["id"]: r for r in records}
    assert set(by_speech) == {"p1", "p2"} and report.skipped == {"no counter": 1}
    for sid, counter in (("p1", "c1"), ("p2", "c2")):
        ids, true = shown(by_speech[sid])
        assert 3 <= len(ids) <= 5 and true == counter and counter in ids  # sampled from 6, counter kept
        # Shown ids are neutral letters: nothing in the page names a speech or whom it answers.
        assert [c["id"] for c in by_speech[sid]["candidates"]] == list("abcde")[: len(ids)]
    assert "c3" not in shown(by_speech["p1"])[0]  # not by ann herself
    # The order is random but recorded: the same seed gives the same questions.
    assert build_questions(CORPUS, seed=3)[0] == records
    orders = {tuple(shown(build_questions(CORPUS, seed=s)[0][0])[0]) for s in range(8)}
    assert len(orders) > 1


def test_exactly_one_true_counter_is_shown():
    # p1 is answered by c1 (explicit) and c2 (implicit); c3 answers nobody.
    corpus = [speech("p1", "ann", "pro"), speech("c1", "cat", "con", counters="p1", kind="explicit"),
              speech("c2", "dan", "con", counters="p1", kind="implicit"), speech("c3", "eve", "con"),
              speech("c4", "fay", "con")]
    for setting, counter in (("explicit", "c1"), ("implicit", "c2")):
        (record,), _ = build_questions(corpus, setting=setting)
        ids, true = shown(record)
        assert true == counter and sorted(ids) == sorted([counter, "c3", "c4"])  # the other counter is not shown
        assert record["gold"]["kind"] == setting
    (record,), _ = build_questions(corpus, setting="all", seed=1)
    ids, true = shown(record)
    assert true in ("c1", "c2") and len({"c1", "c2"} & set(ids)) == 1


def test_settings_keep_one_kind_of_counter():
    explicit, _ = build_questions(CORPUS, setting="explicit")
    implicit, _ = build_questions(CORPUS, setting="implicit")
    assert [r["speech"]["id"] for r in explicit] == ["p1"] and [r["speech"]["id"] for r in implicit] == ["p2"]
    assert explicit[0]["gold"]["kind"] == "explicit" and explicit[0]["id"] == "m1-s1__explicit"
    with pytest.raises(ValueError, match="setting"):
        build_questions(CORPUS, setting="loud")


def test_fewer_candidates_are_left_out_or_counted_honestly():
    small = [speech("p1", "ann", "pro"), speech("c1", "cat", "con", counters="p1"), speech("c2", "dan", "con"),
             speech("p2", "bob", "pro"), speech("c3", "eve", "con", counters="p2", motion="m3"),
             speech("p4", "zed", "pro", motion="m3")]
    records, report = build_questions(small)
    assert records == [] and report.skipped["fewer than 3 candidates"] == 1
    records, report = build_questions(small, min_candidates=2)
    assert len(records) == 1 and report.below_minimum == 1 and report.candidates == {2: 1}
    assert sorted(shown(records[0])[0]) == ["c1", "c2"]
    assert report.lines() == ["1 question; candidates per question: 2: 1",
                              "1 of them has fewer than 3 candidates (the paper's minimum)",
                              "left out, no counter: 2"]


def test_a_build_says_which_minimum_would_build_more():
    # m1: p1's counter c1 and two others (3 candidates); m2: p2's counter c3 and one other (2);
    # m3: p4's counter c5 alone (1 candidate: never a question).
    corpus = [speech("p1", "ann", "pro"), speech("c1", "cat", "con", counters="p1"), speech("c2", "dan", "con"),
              speech("c9", "gil", "con"),
              speech("p2", "bob", "pro", motion="m2"), speech("c3", "eve", "con", counters="p2", motion="m2"),
              speech("c4", "hal", "con", motion="m2"),
              speech("p4", "zed", "pro", motion="m3"), speech("c5", "ivy", "con", counters="p4", motion="m3")]
    _, four = build_questions(corpus, min_candidates=4, max_candidates=5)
    assert four.questions == 0 and four.too_few == {3: 1, 2: 1, 1: 1}
    assert [four.with_minimum(m) for m in (4, 3, 2)] == [0, 1, 2]
    assert four.advice(setting="--min-candidates") == \
        "set --min-candidates to 3 to build 1 question, or to 2 to build 2 questions"
    _, three = build_questions(corpus)
    assert three.advice(setting="X") == "set X to 2 to build 2 questions"
    _, two = build_questions(corpus, min_candidates=2)
    assert two.questions == 2 and two.advice(setting="X") == ""  # the one left has a single candidate


def test_the_gold_stays_out_of_the_payload():
    records, _ = build_questions(CORPUS)
    item = TASK.clean_item(records[0])
    assert "gold" not in item.payload and "counters" not in str(item.payload)
    # No corpus id of a candidate (which could name whom it answers) reaches the payload.
    assert not any(source in str(item.payload) for source in item.gold["sources"].values())
    assert item.gold["counters"] == records[0]["gold"]["counters"]
    for gold in ({"counters": ["zz"]}, {"counters": ["a", "b"]}, "{broken", {"counters": ["a"], "sources": {"q": "x"}}):
        with pytest.raises(FieldError) as exc:
            TASK.clean_item({**records[0], "gold": gold})
        assert exc.value.field == "gold"
    with pytest.raises(FieldError) as exc:
        TASK.clean_item({**records[0], "candidates": records[0]["candidates"][:1]})
    assert exc.value.field == "candidates"


def test_candidate_ids_that_name_a_speaker_are_replaced():
    # Imported by hand with the IBM release's speech ids: the true counter's id ends with the
    # supporting speaker's name, and a candidate's id is the value of its choice on the page.
    record = {"motion": "We should abandon the use of school uniform",
              "speech": {"id": "daniel_1661_school-uniforms_pro_opening", "speaker": "daniel", "transcript": "Uniforms help."},
              "candidates": [{"id": "george_1661_school-uniforms_con_opening", "speaker": "george", "transcript": "No."},
                             {"id": "mary_1661_school-uniforms_con_opening_daniel", "speaker": "mary", "transcript": "No!"}],
              "gold": "mary_1661_school-uniforms_con_opening_daniel"}
    item = TASK.clean_item(record)
    assert [c["id"] for c in item.payload["candidates"]] == ["c1", "c2"]
    assert "daniel" not in str(item.payload) and "opening" not in str(item.payload)
    assert item.gold["counters"] == ["c2"]
    assert item.gold["sources"] == {"c1": "george_1661_school-uniforms_con_opening",
                                    "c2": "mary_1661_school-uniforms_con_opening_daniel"}
    assert item.gold["speakers"] == {"c1": "george", "c2": "mary"}
    # Ids that name nobody stay as they are.
    plain = TASK.clean_item({**record, "candidates": [{**c, "id": i} for c, i in zip(record["candidates"], "xy", strict=True)],
                             "gold": "y"})
    assert [c["id"] for c in plain.payload["candidates"]] == ["x", "y"] and plain.gold["counters"] == ["y"]


def payload():
    return TASK.clean_item(TASK.example().records[0]).payload


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"reasons": ["guess"]}, "choice", "Choose the speech"),
    ({"choice": ["c1", "c2"], "reasons": ["guess"]}, "choice", "Must be text"),
    (QueryDict("choice=c1&choice=c2&reasons=guess"), "choice", "Choose one only"),
    ({"choice": "zz", "reasons": ["guess"]}, "choice", "Choose the speech"),
    ({"choice": "c1"}, "reasons", "at least one reason"),
    ({"choice": "c1", "reasons": ["telepathy"]}, "reasons", "Unknown reason"),
    ({"choice": "c1", "reasons": ["other"], "reason": "   "}, "reason", "Say what your other reason is"),
    ({"choice": "c1", "reasons": ["other"], "reason": "x" * 301}, "reason", "At most 300"),
])
def test_exactly_one_choice_and_reasons(data, field, message):
    with pytest.raises(AnswerInvalid) as exc:
        TASK.clean_answer(data, payload=payload())
    assert message in exc.value.errors[field]


def test_a_valid_answer_and_its_export():
    clean = TASK.clean_answer({"choice": "c1", "reasons": ["other", "quote"], "reason": " same  example "},
                              payload=payload())
    assert clean.answer == {"choice": "c1", "reasons": ["quote", "other"]} and clean.reason == "same example"
    # Free text is kept only with "other".
    assert TASK.clean_answer({"choice": "c2", "reasons": ["guess"], "reason": "hm"}, payload=payload()).reason == ""
    from annotation.task_types.base import ExportContext

    row = TASK.export_row(ExportContext("q1", payload(), gold={"counters": ["c1"], "kind": "explicit"}),
                          clean.answer, clean.reason)
    assert row["correct"] is True and row["choice_position"] == 1 and row["counter_kind"] == "explicit"
    assert row["reasons"] == "quote|other"


def test_a_bonus_for_each_correct_choice_when_the_project_pays_one():
    options = TASK.clean_options({"bonus_per_correct": "0.25"})
    assert options["bonus_per_correct"] == "0.25"
    gold = {"counters": ["c1"], "kind": ""}
    assert TASK.bonus_for(answer={"choice": "c1"}, gold=gold, options=options) == (
        Decimal("0.25"), "correct counter-speech choice", "USD")
    assert TASK.bonus_for(answer={"choice": "c2"}, gold=gold, options=options) is None
    assert TASK.bonus_for(answer={"choice": "c1"}, gold=gold, options=TASK.clean_options({})) is None
    with pytest.raises(ValueError, match="bonus_per_correct"):
        TASK.clean_options({"bonus_per_correct": "-1"})


@pytest.mark.shared_data
def test_the_ibm_speeches_as_questions(shared_data):
    speeches = ibm_speeches(shared_data / "ibm_recorded_debating_v4")
    assert len(speeches) == 200 and all(s["motion"] for s in speeches)
    assert sum(1 for s in speeches if s["counters"]) == 99
    # Two opposing speeches per motion: no question reaches 3 candidates, and that is said.
    records, report = build_questions(speeches)
    assert records == [] and report.skipped["fewer than 3 candidates"] == 99
    records, report = build_questions(speeches, min_candidates=2, seed=2020)
    assert len(records) == 78 == report.below_minimum and report.candidates == {2: 78}
    for r in records:
        item = TASK.clean_item(r)
        # the supporting speech's own speaker is never a candidate (names kept in the gold)
        assert item.gold["speaker"] not in item.gold["speakers"].values() and len(item.gold["counters"]) == 1
        # IBM ids end with the name of the speaker a speech answers: never shown.
        assert not any(source in str(item.payload) for source in item.gold["sources"].values())


@pytest.mark.django_db
def test_correct_answers_earn_the_project_bonus_in_its_currency():
    from django.utils import timezone

    from annotation.importers import ParsedItem
    from annotation.models import Assignment
    from annotation.services import annotation_submit, items_import
    from recruiting.models import Bonus
    from tests.factories import ProjectFactory, UserFactory

    project = ProjectFactory(task_type="counter_speech", redundancy=2,
                             options=TASK.clean_options({"bonus_per_correct": "0.30", "currency": "gbp"}))
    records = TASK.example().records
    items_import(project=project, parsed=[ParsedItem(i, TASK.clean_item(r)) for i, r in enumerate(records, 1)])
    worker, now = UserFactory(), timezone.now()
    for item, choice in zip(project.items.order_by("position"), ("c1", "c4"), strict=True):
        a = Assignment.objects.create(item=item, project=project, worker=worker, assigned_at=now,
                                      expires_at=now + timezone.timedelta(minutes=30))
        annotation_submit(assignment=a, worker=worker, data={"choice": choice, "reasons": ["guess"]})
    bonus = Bonus.objects.get()  # c1 is q1's counter; c4 is not q2's
    assert (bonus.amount, bonus.currency, bonus.worker) == (Decimal("0.30"), "GBP", worker)
