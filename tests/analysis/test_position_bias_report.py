"""The position-bias report: drawn orders, a worker who always picks the left side, and answers
imported from elsewhere, which keep their recorded (import) order."""

from __future__ import annotations

import csv
import gzip
import io

import pytest
from django.urls import reverse

from analysis.presentation import shown_first_frame
from analysis.reports import report_kinds
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.models import Assignment
from annotation.services import annotation_submit, assignment_next
from annotation.services.crowd_results import crowd_import
from annotation.task_types import task_types
from task_types.pairwise.arguments_file import parse_arguments
from task_types.pairwise.corpus import arguments_import
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_the_report_applies_to_every_type_that_draws_an_order():
    for task in task_types():
        assert ("position_bias" in dict(report_kinds(task.slug))) == bool(task.shown_order_parts), task.slug


def _run(project):
    run = analysis_run_create(project=project, kind="position_bias")
    return analysis_run_execute(run_id=run.pk)


def test_a_left_clicker_is_flagged_and_honest_workers_are_not(client):
    project = ProjectFactory(redundancy=6)
    items = [ItemFactory(project=project) for _ in range(30)]
    # Each item's content decides: the honest workers always prefer arg1 of even items, arg2 of odd.
    preferred = {item.pk: "a1" if n % 2 == 0 else "a2" for n, item in enumerate(items)}
    honest = [UserFactory() for _ in range(5)]
    clicker = UserFactory(username="leftclicker")
    for worker in [*honest, clicker]:
        while (assignment := assignment_next(project=project, worker=worker).assignment) is not None:
            label = assignment.shown_order["sides"][0] if worker is clicker else preferred[assignment.item_id]
            annotation_submit(assignment=assignment, worker=worker, data=answer(label))
    first = shown_first_frame(project=project)
    assert len(first) == 180 and set(first["first"]) == {"a1", "a2"}
    run = _run(project)
    result = run.result
    assert result["orders_varied"] and result["first_shown"] == "the argument shown on the left (A1)"
    rows = {row["worker"]: row for row in result["workers"]}
    assert rows["leftclicker"]["share"] == 1.0 and rows["leftclicker"]["flagged"]
    assert 0.2 < rows["leftclicker"]["expected"] < 0.8
    assert not any(rows[w.username]["flagged"] for w in honest)
    assert result["workers"][0]["worker"] == "leftclicker"  # furthest above its expectation first
    assert result["flagged_workers"] == 1
    # The page, its figure and its file.
    client.force_login(UserFactory(role="researcher"))
    page = client.get(f"/projects/{project.slug}/reports/position_bias/")
    assert page.status_code == 200 and b"leftclicker" in page.content and b'data-testid="fixed-order"' not in page.content
    args = {"slug": project.slug, "kind": "position_bias", "run_id": run.pk, "name": "workers"}
    svg = client.get(reverse("report-figure", kwargs=args))
    assert svg.status_code == 200 and b"leftclicker" in svg.content
    admin = UserFactory(role="admin")
    client.force_login(admin)
    body = client.get(reverse("report-file", kwargs=args)).content.decode()
    read = {row["worker"]: row for row in csv.DictReader(io.StringIO(body))}
    assert read["leftclicker"]["flagged"] == "True" and read["leftclicker"]["share"] == "1.0"


ARGUMENTS = (
    "arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
    "x1\tuni_good\tUniforms?\tGood\ta\tUniforms are cheap.\n"
    "x2\tuni_good\tUniforms?\tGood\tb\tUniforms stop bullying.\n"
    "x3\tuni_good\tUniforms?\tGood\tc\tUniforms look smart.\n"
)
HEADER = "topic\tpair_id\targ1\targ2\tworker\thit\tassignment\tlabel\treason\taccepted_at\tsubmitted_at\tworker_stance\n"


def test_crowd_results_keep_their_recorded_order():
    arguments_import(rows=parse_arguments(ARGUMENTS.encode()))
    project = ProjectFactory(redundancy=3)
    rows = [f"uni_good\t{pair}\t{pair[:2]}\t{pair[3:]}\tW{w}\tH1\tA-{w}-{pair}\t{label}\tA1 is short and clear\t"
            "2016-01-31 16:53:19.0 UTC\t2016-01-31 16:59:52.0 UTC\t\n"
            for pair in ("x1_x2", "x3_x1") for w, label in enumerate(["a1", "a1", "a2"])]
    crowd_import(project=project, data=gzip.compress((HEADER + "".join(rows)).encode()), filename="r.tsv.gz")
    assert not Assignment.objects.filter(project=project, shown_order__isnull=False).exists()
    # The release's A1 is the side its workers saw on the left.
    assert set(shown_first_frame(project=project)["first"]) == {"a1"}
    result = _run(project).result
    assert not result["orders_varied"]
    assert result["overall"]["share"] == pytest.approx(result["overall"]["expected"]) == pytest.approx(4 / 6)
