"""The comprehension report on a project: the paper's figures from real submissions (checked by
hand), listening vs reading, the machine reference, its page, figure and per-pair file."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest
from django.utils import timezone

from analysis.methods.comprehension import comprehension_figures
from analysis.models import AnalysisRun
from analysis.reports import ReportInput
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.importers import ParsedItem
from annotation.models import Assignment
from annotation.services import annotation_submit, items_import
from annotation.task_types import get_task_type
from task_types.comprehension.report import SIDE, ComprehensionReport
from task_types.comprehension.tests.factories import clip_row, heard_on_server
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
TASK = get_task_type("comprehension")
WHOLE = {"events": [{"type": "play", "t": 0, "at": 0}, {"type": "ended", "t": 20.0, "at": 20000}],
         "heard": 1.0, "duration": 20.0}
SPEECHES = [  # (id, motion, stance, transcript, titles)
    ("s1", "m1", "pro", "Boxing damages the brain of every boxer.",
     [("a", "boxing damages the brain"), ("b", "boxing glorifies violence")]),
    ("s2", "m1", "con", "A ban drives boxing underground where nobody is safe.",
     [("c", "a ban drives boxing underground"), ("d", "boxers choose their risks")]),
    ("s3", "m2", "pro", "School uniforms are uncomfortable to wear all day.",
     [("e", "uniforms are uncomfortable"), ("f", "uniforms stifle creativity")]),
]


def make_project(mode="reading", speeches=SPEECHES):
    project = ProjectFactory(task_type="comprehension", redundancy=4, options=TASK.clean_options({"mode": mode}))
    records = [{"id": sid, "motion_id": motion, "motion": f"motion {motion}", "gold": titles[0][0],
                "speech": {"id": sid, "speaker": "x", "stance": stance, "transcript": text, "audio": ""},
                "titles": [{"id": t, "title": title} for t, title in titles]}
               for sid, motion, stance, text, titles in speeches]
    items_import(project=project, parsed=[ParsedItem(i, TASK.clean_item(r)) for i, r in enumerate(records, 1)])
    return project


def answer_all(project, worker, answers, *, playback=None):
    """``answers`` maps speech id → ticked title ids ([] for None); speeches it leaves out are not answered."""
    now = timezone.now()
    for item in project.items.filter(external_id__in=list(answers)).order_by("position"):
        a = Assignment.objects.create(item=item, project=project, worker=worker, assigned_at=now,
                                      expires_at=now + timezone.timedelta(minutes=30))
        item.n_active += 1
        item.save(update_fields=["n_active"])
        data = {"titles": answers[item.external_id] or ["none"]}
        if playback:
            data["playback"] = playback
            heard_on_server(a, item.payload["speech"]["audio"])
        annotation_submit(assignment=a, worker=worker, data=data)


def run_report(project, **params):
    run = analysis_run_create(project=project, kind="comprehension", params={"n_boot": 50, **params}, enqueue=False)
    run = analysis_run_execute(run_id=run.pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return run


def test_figures_from_submissions_match_the_hand_count():
    project = make_project()
    # Three readers. Votes per pair: a 3/3, b 0/3, c 2/3, d 1/3, e 0/3, f 0/3 (s3: everyone says None).
    answer_all(project, UserFactory(), {"s1": ["a"], "s2": ["c"], "s3": []})
    answer_all(project, UserFactory(), {"s1": ["a"], "s2": ["c", "d"], "s3": []})
    answer_all(project, UserFactory(), {"s1": ["a"], "s2": [], "s3": []})
    result = run_report(project).result
    f = result["modes"]["reading"]
    assert list(result["modes"]) == ["reading"] and result["comparison"] is None
    assert f["n_questions"] == 6 and f["n_speeches"] == 3
    assert f["positive_share"]["value"] == pytest.approx(2 / 6)  # a and c
    assert f["titles_per_speech"]["value"] == pytest.approx(2.0)
    assert f["speeches_with_positive"]["value"] == pytest.approx(2 / 3)  # s1, s2
    assert f["speeches_with_majority"]["value"] == pytest.approx(2 / 3)  # s1, s2
    # Labelled positive (by majority) somewhere, the paper's count: a, c; ticked by at least one reader: a, c, d.
    assert f["titles_ticked_once"]["value"] == pytest.approx(3 / 6)
    assert f["titles_labelled_positive_once"]["value"] == pytest.approx(2 / 6)
    assert f["titles_ticked_once"]["unit"] == "title group" and f["n_title_groups"] == 3
    # Figure 1: questions with 0, 1, 2, 3 positive votes of m = 3.
    assert f["positive_votes"]["counts"] == {"3": [3, 1, 1, 1]}
    shares = f["figure1"]["3"]
    assert shares["counts"] == [3, 1, 1, 1] and shares["shares"] == pytest.approx([0.5, 1 / 6, 1 / 6, 1 / 6])
    assert all(low <= share <= high for share, (low, high) in zip(shares["shares"], shares["intervals"], strict=True))
    # Fleiss over the six questions: P_o = mean(1, 1, 1/3, 1/3, 1, 1) = 7/9; p_yes = 6/18 = 1/3,
    # P_e = 1/9 + 4/9 = 5/9; kappa = (7/9 - 5/9) / (4/9) = 1/2.
    assert f["fleiss_kappa"]["value"] == pytest.approx(0.5)
    rows = result["pairs"]
    assert [(r["title_id"], r["votes"], r["majority"]) for r in rows] == [
        ("a", 3, 1), ("b", 0, 0), ("c", 2, 1), ("d", 1, 0), ("e", 0, 0), ("f", 0, 0)]


def test_listening_and_reading_on_the_same_speeches(monkeypatch):
    # The report does not play audio: items imported for reading, then the project asks for both.
    project = make_project()
    project.options = TASK.clean_options({"mode": "both"})
    project.save(update_fields=["options"])
    clip_row(project, "speech.wav", duration=20.0)
    for item in project.items.all():
        item.payload["speech"]["audio"] = "speech.wav"
        item.save(update_fields=["payload"])
    workers = [UserFactory() for _ in range(12)]
    modes = {w.pk: TASK.variant(options=TASK.clean_options(project.options), project_id=project.pk, worker_id=w.pk)
             for w in workers}
    listeners = [w for w in workers if modes[w.pk] == "listening"][:2]
    readers = [w for w in workers if modes[w.pk] == "reading"][:2]
    assert len(listeners) == len(readers) == 2
    for w in listeners:
        answer_all(project, w, {"s1": ["a"], "s2": ["c"], "s3": []}, playback=WHOLE)
    answer_all(project, readers[0], {"s1": ["a"], "s2": ["c"], "s3": ["e"]})
    answer_all(project, readers[1], {"s1": ["a", "b"], "s2": ["c"], "s3": ["e"]})
    result = run_report(project).result
    assert set(result["modes"]) == {"listening", "reading"}
    comparison = result["comparison"]
    # Majorities: listening a c (b d e f negative); reading a c e (b is 1/2, a tie: negative). Same on 5 of 6.
    assert comparison["n_questions"] == 6 and comparison["same_majority_share"] == pytest.approx(5 / 6)
    assert comparison["listening"]["n_workers"] == 2


def test_machine_reference_and_the_page(client):
    project = make_project()
    for ticks in ({"s1": ["a"], "s2": ["c"], "s3": ["e"]}, {"s1": ["a"], "s2": ["c"], "s3": ["e", "f"]}):
        answer_all(project, UserFactory(), ticks)
    run = run_report(project, reference_labels="gold", dev_share=0.5)
    machine = run.result["machine"]
    assert set(machine["configurations"]) == {"title_whole", "title_sentence", "text_whole", "text_sentence"}
    # One motion per split; gold names one of the two titles of every speech, so all-yes is right
    # on half of each speech's pairs, and a threshold tuned on the dev motion separates its pairs.
    assert machine["dev"]["n_motions"] == machine["test"]["n_motions"] == 1
    assert machine["all_yes"]["test"] == pytest.approx(0.5) and machine["all_yes"]["dev"] == pytest.approx(0.5)
    assert machine["configurations"]["title_whole"]["dev_accuracy"] == pytest.approx(1.0)
    assert machine["labels"] == "gold" and len(machine["dev_motions"]) == 1

    client.force_login(UserFactory(role="admin"))
    page = client.get(f"/projects/{project.slug}/reports/comprehension/")
    text = page.content.decode()
    assert page.status_code == 200 and "Pairs positive by majority" in text and "All-yes baseline" in text
    assert 'data-testid="distribution"' in text
    # The paper's "248 (~56%) ... labeled as positive at least once" is the labelled figure, named as
    # the paper's with its value; the one-annotator share has its own name.
    assert "Titles labelled positive at least once (the paper&#x27;s figure)" in text
    assert "paper: 248 (~56%) of the iDebate arguments" in text
    assert "Titles ticked by at least one annotator" in text
    svg = client.get(f"/projects/{project.slug}/reports/comprehension/runs/{run.pk}/votes.svg")
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml" and b"<svg" in svg.content
    pairs = client.get(f"/projects/{project.slug}/reports/comprehension/runs/{run.pk}/files/pairs")
    rows = list(csv.DictReader(io.StringIO(pairs.content.decode())))
    assert len(rows) == 6 and rows[0]["title_id"] == "a" and rows[0]["votes"] == "2"
    overview = client.get(f"/projects/{project.slug}/overview/").content.decode()
    assert f"/projects/{project.slug}/reports/comprehension/" in overview
    # The page of a report that does not apply to the project's type does not exist.
    assert client.get(f"/projects/{ProjectFactory().slug}/reports/comprehension/").status_code == 404


def test_one_motion_gives_figures_and_says_why_there_is_no_machine_reference():
    project = make_project()
    project.items.exclude(external_id__in=["s1", "s2"]).delete()
    answer_all(project, UserFactory(), {"s1": ["a"], "s2": ["c"]})
    answer_all(project, UserFactory(), {"s1": ["a"], "s2": []})
    result = run_report(project).result
    assert result["modes"]["reading"]["n_questions"] == 4
    assert "at least two motions" in result["machine"]["problem"]


def test_title_ids_reused_by_other_motions_stay_apart():
    project = ProjectFactory(task_type="comprehension", redundancy=2, options=TASK.clean_options({"mode": "reading"}))
    records = [{"id": f"s{m}", "motion_id": f"m{m}", "motion": f"motion {m}", "speech": {"id": f"s{m}", "stance": "pro",
                "transcript": text}, "titles": [{"id": "1", "title": title}]}
               for m, text, title in ((1, "Boxing harms the brain.", "boxing harms the brain"),
                                      (2, "Uniforms cost money.", "uniforms cost money"))]
    items_import(project=project, parsed=[ParsedItem(i, TASK.clean_item(r)) for i, r in enumerate(records, 1)])
    answer_all(project, UserFactory(), {"s1": ["1"], "s2": []})
    answer_all(project, UserFactory(), {"s1": ["1"], "s2": []})
    result = run_report(project).result
    # Title "1" of motion 1 was argued, title "1" of motion 2 was not: two titles, one positive.
    assert result["modes"]["reading"]["titles_ticked_once"]["value"] == pytest.approx(0.5)
    assert result["modes"]["reading"]["titles_labelled_positive_once"]["value"] == pytest.approx(0.5)
    assert [(r["speech"], r["title_id"], r["title"], r["majority"]) for r in result["pairs"]] == [
        ("s1", "1", "boxing harms the brain", 1), ("s2", "1", "uniforms cost money", 0)]


# --- every interval the report gives contains its estimate -------------------------------------------

def study_input(seed, *, n_motions, m, reading_share=0.0):
    """A ReportInput in the paper's design: per motion and side two speeches asked the side's
    titles, ``m`` listeners each; on a share of the speeches, ``m`` other workers read."""
    rng = np.random.default_rng(seed)
    care = rng.uniform(0.6, 0.95, 16)
    rows, items = [], []
    for motion in range(n_motions):
        for side in ("pro", "con"):
            titles = [{"id": str(t), "title": f"argument {t} of motion {motion}", "text": ""}
                      for t in range(rng.integers(1, 6))]
            for copy in range(2):
                item = f"m{motion}-{side}-{copy}"
                truth = rng.random(len(titles)) < 0.4
                items.append({"item": item, "gold": None, "motion": f"m{motion}", "stance": side,
                              "transcript": " ".join(t["title"] for t, a in zip(titles, truth, strict=True) if a)
                              or "nothing at all", "sentences": [], "titles": titles})
                modes = [("listening", range(8))]
                if rng.random() < reading_share:
                    modes.append(("reading", range(8, 16)))
                for mode, pool in modes:
                    for w in rng.choice(list(pool), size=m, replace=False):
                        for t, argued in zip(titles, truth, strict=True):
                            label = argued if rng.random() < care[w] else not argued
                            rows.append({"item": item, "worker": f"w{w}", "option": t["id"],
                                         "label": int(label), "mode": mode})
    return ReportInput(frame=pd.DataFrame(rows), items=pd.DataFrame(items), task_type="comprehension",
                       redundancy=m)


def intervals_of(result, path=()):
    """(where, estimate, interval) of every figure with an interval in a report's result."""
    if isinstance(result, dict):
        if "value" in result and result.get("interval") is not None:
            yield path, result["value"], result["interval"]
        if "shares" in result and "intervals" in result:
            for k, (share, interval) in enumerate(zip(result["shares"], result["intervals"], strict=True)):
                if interval is not None:
                    yield (*path, k), share, interval
        for key, value in result.items():
            yield from intervals_of(value, (*path, key))


@pytest.mark.parametrize(("seed", "n_motions", "m", "reading_share"),
                         [(0, 12, 5, 0.0), (1, 20, 5, 0.4), (2, 6, 3, 0.5), (3, 30, 4, 0.2)])
def test_every_interval_of_the_report_contains_its_estimate(seed, n_motions, m, reading_share):
    data = study_input(seed, n_motions=n_motions, m=m, reading_share=reading_share)
    report = ComprehensionReport()
    params = report.clean_params({"n_boot": 200, "seed": seed})
    result = report.run(data, params, lambda fraction, stage: None)
    found = list(intervals_of(result))
    assert len(found) > 10
    for where, value, (low, high) in found:
        if value is None:  # undefined, e.g. high confidence with m <= 3
            continue
        assert low <= value <= high, (where, value, low, high)


def test_the_reading_subset_has_its_own_figures_and_n():
    # Listeners hear every speech, readers read about 40% of them (the paper: 200 and 40).
    data = study_input(4, n_motions=20, m=5, reading_share=0.4)
    report = ComprehensionReport()
    result = report.run(data, report.clean_params({"n_boot": 50}), lambda fraction, stage: None)
    read = set(data.frame.loc[data.frame["mode"] == "reading", "item"])
    listening, reading = result["modes"]["listening"], result["modes"]["reading"]
    subset = result["reading_subset"]
    assert listening["n_speeches"] == 80 and reading["n_speeches"] == len(read) < 80
    # The listeners' figures on the read speeches only: their own N, and their own values.
    assert subset["n_speeches"] == len(read)
    assert subset["n_questions"] == reading["n_questions"]
    shared = data.frame[(data.frame["mode"] == "listening") & data.frame["item"].isin(read)]
    expected = comprehension_figures(
        shared.assign(option=shared["item"].str.rsplit("-", n=1).str[0] + SIDE + shared["option"])
        [["item", "option", "worker", "label"]], data.items.set_index("item")["stance"], n_boot=0)
    assert subset["cohen_kappa"]["value"] == pytest.approx(expected.cohen_kappa.value)
    assert subset["positive_share"]["value"] == pytest.approx(expected.positive_share.value)
    context = report.page_context(result)
    assert [c["label"] for c in context["columns"]] == ["Listening", "Listening, read speeches", "Reading"]
    assert [c["n_speeches"] for c in context["columns"]] == [80, len(read), len(read)]
