"""Key-point set comparisons from several systems' output: one item per topic and stance, each
key point with its prevalence from the system's predictions, the sets' order drawn with the
seed; a system breaking the 5–10 rule is refused by name; the command; the ranking report."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from analysis.methods.keypoint_track2 import Track2Error
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.importers import ImportFailed
from annotation.models import Assignment
from annotation.services import annotation_submit
from task_types.key_point_sets.build import comparison_records, key_point_sets_build
from task_types.key_points.system_files import SystemOutput
from task_types.key_points.tests.track2_example import ARGUMENTS, KEY_POINTS, PREDICTIONS, SYSTEM
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
# A second system: the same key points renamed, every argument matched to its first key point.
OTHER = SystemOutput("other", KEY_POINTS.assign(key_point_id=[f"o{i}" for i in range(10)]),
                     {a: {("o0" if s == 1 else "o5"): 1.0} for a, s in zip(ARGUMENTS["arg_id"], ARGUMENTS["stance"], strict=True)})


def test_one_comparison_per_topic_and_stance_with_each_key_points_prevalence():
    records = comparison_records(ARGUMENTS, [SYSTEM, OTHER], seed=0)
    assert [(r["stance"], r["arguments"]) for r in records] == [(-1, 2), (1, 4)]
    pro = {s["system"]: s["key_points"] for s in records[1]["sets"]}
    # hand-made: p1, p2 → kp0; p3 → kp1; p4 → kp2: 2/4, 1/4, 1/4, most prevalent first.
    assert [(k["text"], k["matched"], k["share"]) for k in pro["hand-made"][:3]] == [
        ("Boxing harms health", 2, 0.5), ("Boxing is violent", 1, 0.25), ("A bad example", 1, 0.25)]
    assert pro["other"][0]["share"] == 1.0 and len(pro["other"]) == 5
    orders = {tuple(s["system"] for s in comparison_records(ARGUMENTS, [SYSTEM, OTHER], seed=k)[1]["sets"])
              for k in range(10)}
    assert orders == {("hand-made", "other"), ("other", "hand-made")}


def test_a_system_outside_the_count_rule_is_refused_by_name_and_the_switch():
    short = SystemOutput("short", KEY_POINTS.iloc[[0, 1, 5, 6]], PREDICTIONS)  # 2 + 2
    with pytest.raises(Track2Error, match="system 'short': topic 'We should ban boxing': 4 key points .*"
                                          "counts='any' lifts this check"):
        comparison_records(ARGUMENTS, [SYSTEM, short])
    assert len(comparison_records(ARGUMENTS, [SYSTEM, short], counts="any")) == 2
    # 4 + 5: what the shared task allows is built by default, refused per stance.
    nine = SystemOutput("nine", KEY_POINTS.iloc[1:], PREDICTIONS)
    assert len(comparison_records(ARGUMENTS, [SYSTEM, nine])) == 2
    with pytest.raises(Track2Error, match="system 'nine': topic 'We should ban boxing', stance 1: 4 key points"):
        comparison_records(ARGUMENTS, [SYSTEM, nine], counts="stance")
    with pytest.raises(Track2Error, match="compare 2 to 5 systems"):
        comparison_records(ARGUMENTS, [SYSTEM])
    project = ProjectFactory(task_type="key_point_sets")
    with pytest.raises(ImportFailed):
        key_point_sets_build(project=project, arguments=ARGUMENTS, systems=[SYSTEM, short])
    assert not project.items.exists()


def choose(project, worker, systems_chosen):
    """systems_chosen: stance → system name the worker picks."""
    now = timezone.now()
    for item in project.items.all():
        a = Assignment.objects.create(item=item, project=project, worker=worker, assigned_at=now,
                                      expires_at=now + timezone.timedelta(minutes=30))
        item.n_active += 1
        item.save(update_fields=["n_active"])
        by_system = {name: set_id for set_id, name in item.gold["systems"].items()}
        annotation_submit(assignment=a, worker=worker, data={"choice": by_system[systems_chosen[item.payload["stance"]]]})


def test_the_command_builds_and_the_report_ranks_the_systems(tmp_path, capsys, client):
    project = ProjectFactory(task_type="key_point_sets", redundancy=3)
    ARGUMENTS.to_csv(tmp_path / "arguments.csv", index=False)
    for system in (SYSTEM, OTHER):
        system.key_points.to_csv(tmp_path / f"{system.name}.csv", index=False)
        (tmp_path / f"{system.name}.json").write_text(json.dumps(system.predictions))
    call_command("key_point_sets_build", project.slug, "--arguments", str(tmp_path / "arguments.csv"),
                 *[a for s in ("hand-made", "other") for a in ("--system", s, str(tmp_path / f"{s}.csv"),
                                                                 str(tmp_path / f"{s}.json"))])
    assert "2 comparisons of 2 systems: 2 new items" in capsys.readouterr().out
    # Five choices for hand-made, one for other: hand-made ranks first.
    choose(project, UserFactory(username="j1"), {1: "hand-made", -1: "hand-made"})
    choose(project, UserFactory(username="j2"), {1: "hand-made", -1: "hand-made"})
    choose(project, UserFactory(username="j3"), {1: "hand-made", -1: "other"})
    run = analysis_run_execute(run_id=analysis_run_create(project=project, kind="key_point_sets", enqueue=False,
                                                          params={"n_boot": 200}).pk)
    assert run.status == "done", run.error
    systems = run.result["systems"]
    assert [s["system"] for s in systems] == ["hand-made", "other"]
    assert [(s["chosen"], s["shown"]) for s in systems] == [(5, 6), (1, 6)]
    # Prior 0.5: hand-made 5.5 wins to 1.5, log-odds log(5.5/1.5) split ±½ around 0.
    assert systems[0]["strength"] - systems[1]["strength"] == pytest.approx(math.log(5.5 / 1.5))
    assert systems[0]["low"] <= systems[0]["strength"] <= systems[0]["high"]
    client.force_login(UserFactory(role="admin"))
    url = reverse("report-file", kwargs={"slug": project.slug, "kind": "key_point_sets", "run_id": run.pk,
                                         "name": "systems"})
    response = client.get(url)
    body = b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()
    assert next(csv.DictReader(io.StringIO(body)))["system"] == "hand-made"


def write_systems(tmp_path, systems):
    ARGUMENTS.to_csv(tmp_path / "arguments.csv", index=False)
    args = ["--arguments", str(tmp_path / "arguments.csv")]
    for system in systems:
        system.key_points.to_csv(tmp_path / f"{system.name}.csv", index=False)
        (tmp_path / f"{system.name}.json").write_text(json.dumps(system.predictions))
        args += ["--system", system.name, str(tmp_path / f"{system.name}.csv"), str(tmp_path / f"{system.name}.json")]
    return args


def test_every_refusal_of_the_count_check_names_the_switch_that_lifts_it(tmp_path, client,
                                                                         django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import CommandError

    short = SystemOutput("short", KEY_POINTS.iloc[[0, 1, 5, 6]], PREDICTIONS)
    project = ProjectFactory(task_type="key_point_sets")
    args = write_systems(tmp_path, [SYSTEM, short])
    with pytest.raises(CommandError, match="4 key points .*--counts any lifts this check"):
        call_command("key_point_sets_build", project.slug, *args)
    call_command("key_point_sets_build", project.slug, *args, "--counts", "any")
    assert project.items.count() == 2
    other = ProjectFactory(task_type="key_point_sets")
    client.force_login(UserFactory(role="admin", is_superuser=True, is_staff=True))
    url = reverse("admin:annotation_project_key_point_sets", args=[other.pk])
    files = {"arguments": ("arguments.csv", tmp_path / "arguments.csv")}
    for n, system in enumerate((SYSTEM, short), 1):
        files[f"key_points_{n}"] = (f"{system.name}.csv", tmp_path / f"{system.name}.csv")
        files[f"predictions_{n}"] = (f"{system.name}.json", tmp_path / f"{system.name}.json")
    data = {name: SimpleUploadedFile(filename, path.read_bytes()) for name, (filename, path) in files.items()}
    # The page queues an import job (run here at once) and shows its outcome on the job's page.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {**data, "name_1": SYSTEM.name, "name_2": short.name, "seed": 0,
                                     "min_score": 0, "counts": "topic"})
    assert response.status_code == 302
    page = " ".join(client.get(response["Location"]).content.decode().split())
    assert "4 key points" in page
    assert "The setting &#x27;Key-point counts: Any number (no check)&#x27; lifts this check" in page
    assert not other.items.exists()


@pytest.mark.shared_data
def test_the_shared_tasks_dev_key_points_are_compared_as_they_are(shared_data):
    from analysis.methods.keypoint_eval import load_data
    from analysis.methods.keypoint_match import match_tfidf

    dev = load_data(shared_data / "kpa_2021", "dev")
    per_side = dev.key_points.groupby(["topic", "stance"]).size()
    assert per_side.min() == 3 and per_side.max() == 5  # fewer than 5 on some sides
    tfidf = match_tfidf(arguments=dev.arguments, key_points=dev.key_points)
    first = {a: dict(list(scores.items())[:1]) for a, scores in tfidf.items()}
    systems = [SystemOutput("tfidf", dev.key_points, tfidf), SystemOutput("first", dev.key_points, first)]
    records = comparison_records(dev.arguments, systems)
    assert len(records) == 8
    with pytest.raises(Track2Error, match="stance .*: 3 key points .*counts='any' lifts this check"):
        comparison_records(dev.arguments, systems, counts="stance")
