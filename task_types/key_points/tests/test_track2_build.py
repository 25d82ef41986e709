"""Track 2's matching half on a hand-made system: the sampled top pairs become key-point matching
items; a set without 5 to 10 key points is refused naming its topic and stance; once annotated,
the system is scored exactly as track 1 scores it on the labels of the 60% / 15% rule."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from django.core.management import call_command
from django.utils import timezone

from analysis.methods.keypoint_eval import evaluate
from annotation.importers import ImportFailed
from annotation.models import Assignment
from annotation.services import annotation_submit
from task_types.key_points.system_files import SystemOutput
from task_types.key_points.tests.track2_example import ARGUMENTS, KEY_POINTS, PREDICTIONS, SYSTEM, T
from task_types.key_points.track2 import track2_build, track2_score
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def matching_project():
    return ProjectFactory(task_type="key_points", redundancy=3)


def test_the_top_half_becomes_matching_items_with_the_systems_key_points():
    project = matching_project()
    built = track2_build(project=project, arguments=ARGUMENTS, system=SYSTEM, sample=None)
    assert (built.selection.pairs, built.selection.kept, built.created) == (6, 3, 3)
    items = {i.external_id: i.payload for i in project.items.all()}
    assert sorted(items) == ["c2", "p1", "p2"]
    assert [kp["id"] for kp in items["p1"]["key_points"]] == ["kp0", "kp1", "kp2", "kp3", "kp4"]
    assert items["c2"]["argument"] == "it gives discipline" and items["c2"]["stance"] == -1
    # Again: nothing new; a sample of 1 with a seed.
    assert track2_build(project=project, arguments=ARGUMENTS, system=SYSTEM, sample=None).existing == 3
    other = matching_project()
    track2_build(project=other, arguments=ARGUMENTS, system=SYSTEM, sample=1, seed=5, show="predicted")
    (item,) = other.items.all()
    assert item.external_id in {"p1", "p2", "c2"} and len(item.payload["key_points"]) == 1


def test_four_and_four_key_points_are_taken_as_the_shared_task_allows():
    four_and_four = SystemOutput("short", KEY_POINTS[~KEY_POINTS["key_point_id"].isin(["kp4", "kc4"])], PREDICTIONS)
    assert track2_build(project=matching_project(), arguments=ARGUMENTS, system=four_and_four,
                        sample=None).created == 3


def test_counts_outside_the_rule_are_refused_naming_the_switch_and_nothing_is_written():
    project = matching_project()
    twenty = SystemOutput("long", pd.concat([KEY_POINTS, KEY_POINTS.assign(
        key_point_id=[f"x{i}" for i in range(10)])]), PREDICTIONS)
    with pytest.raises(ImportFailed, match=f"system 'long': topic '{T}': 20 key points .*counts='any' lifts"):
        track2_build(project=project, arguments=ARGUMENTS, system=twenty, sample=None)
    short = SystemOutput("short", KEY_POINTS[KEY_POINTS["key_point_id"] != "kc4"], PREDICTIONS)
    with pytest.raises(ImportFailed, match=f"system 'short': topic '{T}', stance -1: 4 key points .*SWITCH lifts"):
        track2_build(project=project, arguments=ARGUMENTS, system=short, sample=None, counts="stance", lift="SWITCH")
    assert not project.items.exists()
    assert track2_build(project=project, arguments=ARGUMENTS, system=twenty, sample=None, counts="any").created == 3
    with pytest.raises(ImportFailed, match="not a key-point one"):
        track2_build(project=ProjectFactory(task_type="key_point_sets"), arguments=ARGUMENTS, system=SYSTEM,
                     sample=None)


def annotate(project, marks):
    """marks: worker name → {arg_id: [key point ids] or [] for None}."""
    now = timezone.now()
    for name, answers in marks.items():
        worker = UserFactory(username=name)
        for item in project.items.filter(external_id__in=answers):
            a = Assignment.objects.create(item=item, project=project, worker=worker, assigned_at=now,
                                          expires_at=now + timezone.timedelta(minutes=30))
            item.n_active += 1
            item.save(update_fields=["n_active"])
            annotation_submit(assignment=a, worker=worker, data={"key_points": answers[item.external_id] or ["none"]})


def test_the_system_is_scored_as_track_1_on_the_derived_labels():
    project = matching_project()
    track2_build(project=project, arguments=ARGUMENTS, system=SYSTEM, sample=None)
    # p1–kp0: 3/3 → 1; p2–kp0: 1/3 (33%) → ambiguous; c2–kc1: 0/3 → 0.
    annotate(project, {"w1": {"p1": ["kp0"], "p2": ["kp0"], "c2": []},
                       "w2": {"p1": ["kp0"], "p2": [], "c2": ["kc0"]},
                       "w3": {"p1": ["kp0", "kp1"], "p2": [], "c2": []}})
    result = track2_score(project=project, arguments=ARGUMENTS, system=SYSTEM)
    assert result["kept_pairs"] == 3 and result["kept_pairs_labelled"] == 2
    # The same call by hand, with the labels the 60% / 15% rule gives.
    labels = pd.DataFrame([("p1", "kp0", 1), ("p1", "kp1", 0), ("p2", "kp0", None), ("c2", "kc1", 0),
                           ("c2", "kc0", None)], columns=["arg_id", "key_point_id", "label"])
    hand = evaluate(arguments=ARGUMENTS, key_points=KEY_POINTS, predictions=PREDICTIONS,
                    labels=labels.dropna().astype({"label": int})).to_dict()
    assert result["strict"] == pytest.approx(hand["strict"]) and result["relaxed"] == pytest.approx(hand["relaxed"])
    # By hand: pro keeps p1 (1) and p2 (strict 0 / relaxed 1): strict AP 1 × 1/2, relaxed 1 × 2/2;
    # con keeps c2 (0): 0 both. mAP strict (0.5 + 0)/2, relaxed (1 + 0)/2.
    assert result["strict"] == pytest.approx(0.25) and result["relaxed"] == pytest.approx(0.5)


def test_the_commands_build_and_score(tmp_path, capsys):
    project = matching_project()
    ARGUMENTS.to_csv(tmp_path / "arguments.csv", index=False)
    KEY_POINTS.to_csv(tmp_path / "key_points.csv", index=False)
    (tmp_path / "predictions.json").write_text(json.dumps(PREDICTIONS))
    files = ["--arguments", str(tmp_path / "arguments.csv"), "--key-points", str(tmp_path / "key_points.csv"),
             "--predictions", str(tmp_path / "predictions.json")]
    call_command("track2_build", project.slug, *files, "--system", "hand-made", "--sample", "2", "--seed", "1")
    assert "3 in the top half; 2 sampled: 2 new items" in capsys.readouterr().out
    annotate(project, {"w1": {i: [] for i in project.items.values_list("external_id", flat=True)}})
    call_command("track2_score", project.slug, *files)
    assert set(json.loads(capsys.readouterr().out)) >= {"strict", "relaxed", "mean", "groups", "kept_pairs"}
