"""The gold page: ranking with argument texts, a readable argument graph with hover texts,
a confirmation before rejecting a worker's work, and the published figures only beside the
project that reproduces that corpus."""

import gzip
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.services import analysis_run_create
from annotation.models import Assignment, Project
from task_types.pairwise.report import PairwiseGoldReport
from task_types.pairwise.tests.test_report import FAST, build_project
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client):
    client.force_login(UserFactory(role="admin"))
    return client


def test_ranking_shows_argument_texts_and_the_graph_their_titles(admin, gold):
    response = admin.get(reverse("gold-page", args=[gold.project.slug]), {"topic": "t_good"})
    body = response.content.decode()
    view = response.context["view"]
    assert [r.argument for r in view.ranking][0] == "t_good_5"
    assert view.ranking[0].text == "Argument 5 of t_good, with\nmany words here."
    assert '<tr id="rank-t_good_5"><td class="num">1</td>' in body
    assert '<p class="arg-text">Argument 5 of t_good, with\nmany words here.</p>' in body
    # The graph is drawn inline: every argument labelled, its text on hover, a link to its row.
    assert body.count('<g class="graph-node">') == view.graph.arguments == 6
    assert "<title>t_good_5 (rank 1): Argument 5 of t_good, with many words here.</title>" in body
    assert '<a href="#rank-t_good_5">' in body
    unknown = admin.get(reverse("gold-page", args=[gold.project.slug]), {"topic": "no-such-topic"})
    assert unknown.context["view"].topic == "t_bad"  # the first topic instead of an empty page


def test_long_texts_are_shortened_with_the_full_text_on_demand(admin, django_capture_on_commit_callbacks):
    long_text = "A long argument with many words about school uniforms. " * 6
    project, _ = build_project()
    for item in project.items.filter(payload__topic="t_good"):
        payload = dict(item.payload)
        for side in ("arg1", "arg2"):
            if payload[side]["id"] == "t_good_5":
                payload[side] = {**payload[side], "text": long_text}
        project.items.filter(pk=item.pk).update(payload=payload)
    with django_capture_on_commit_callbacks(execute=True):
        analysis_run_create(project=project, kind="pairwise_gold", params=FAST)
    body = admin.get(reverse("gold-page", args=[project.slug]), {"topic": "t_good"}).content.decode()
    assert '<details class="arg-text"><summary><span class="short">A long argument with many words' in body
    assert f"<p>{long_text}</p>" in body
    assert "<title>t_good_5 (rank 1): " + long_text.strip() + "</title>" in body


def test_a_run_shows_and_exports_the_texts_it_ran_on(admin, gold):
    # An item edited after the run: the run's page and files keep the text the run saw.
    for item in gold.project.items.all():
        payload = {**item.payload, "arg1": {**item.payload["arg1"], "text": "edited later"},
                   "arg2": {**item.payload["arg2"], "text": "edited later"}}
        gold.project.items.filter(pk=item.pk).update(payload=payload)
    view = admin.get(reverse("gold-page", args=[gold.project.slug]), {"topic": "t_good"}).context["view"]
    assert view.ranking[0].text == "Argument 5 of t_good, with\nmany words here."
    strict = b"".join(admin.get(reverse("gold-file", args=[gold.project.slug, gold.pk, "strict.tsv"]))
                      .streaming_content).decode()
    assert "edited later" not in strict and "Argument 5 of t_good" in strict


def test_the_graph_file_is_a_standalone_svg(admin, gold):
    svg = admin.get(reverse("gold-graph", args=[gold.project.slug, gold.pk]), {"topic": "t_good"})
    assert svg["Content-Type"] == "image/svg+xml"
    text = svg.content.decode()
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')
    assert "<title>t_good_5 (rank 1): Argument 5 of t_good, with many words here.</title>" in text
    assert '<a href="#rank-' not in text  # no page to link into
    assert admin.get(reverse("gold-graph", args=[gold.project.slug, gold.pk]), {"topic": "none"}).status_code == 404


def test_rejecting_asks_first_and_says_what_will_happen(admin, gold):
    spammer = get_user_model().objects.get(username="mturk+spammer")
    url = reverse("gold-reject-worker", args=[gold.project.slug, spammer.pk])
    page = admin.get(reverse("gold-page", args=[gold.project.slug])).content.decode()
    assert f'<a class="button" href="{url}">Reject all their work and recompute…</a>' in page
    confirm = admin.get(url)
    body = confirm.content.decode()
    assert confirm.status_code == 200
    assert "This rejects <strong>30 assignments</strong> of <strong>mturk+spammer</strong>" in body
    assert f"recomputed with the settings of run #{gold.pk}" in body and "Cancel</a>" in body
    assert "Why they are listed: reused" in body
    # Looking changed nothing.
    assert not Assignment.objects.filter(worker=spammer, status="rejected").exists()
    assert AnalysisRun.objects.count() == 1


def test_nothing_to_reject_creates_no_run(admin, gold):
    idle = UserFactory(username="idle")
    url = reverse("gold-reject-worker", args=[gold.project.slug, idle.pk])
    assert "there is nothing to reject" in admin.get(url).content.decode()
    assert admin.post(url).status_code == 302
    assert AnalysisRun.objects.count() == 1


def test_researchers_cannot_reject(client, gold):
    client.force_login(UserFactory(role="researcher"))
    spammer = get_user_model().objects.get(username="mturk+spammer")
    assert client.get(reverse("gold-reject-worker", args=[gold.project.slug, spammer.pk])).status_code == 403
    assert "Reject all their work" not in client.get(reverse("gold-page", args=[gold.project.slug])).content.decode()


def test_published_figures_only_beside_the_reproducing_project(admin, gold):
    url = reverse("gold-page", args=[gold.project.slug])
    body = admin.get(url).content.decode()
    assert "UKPConvArg1 (Habernal" not in body and "16081" not in body
    Project.objects.filter(pk=gold.project.pk).update(options={"reference_corpus": "ukpconvarg1"})
    body = admin.get(url).content.decode()
    assert '<th class="num">UKPConvArg1 (Habernal &amp; Gurevych, ACL 2016)</th>' in body
    assert '<td class="num">16081</td>' in body and '<td class="num">11650</td>' in body and "≈" not in body
    # The paper's best-ranked worker accuracy, from its pilot study, beside the project's.
    assert '<td class="num" data-testid="paper-best-worker">0.935 (pilot study)</td>' in body


def test_the_gold_page_is_only_for_projects_its_report_applies_to(admin, monkeypatch):
    project = ProjectFactory()
    monkeypatch.setattr(PairwiseGoldReport, "task_types", ("another",))
    assert admin.get(reverse("gold-page", args=[project.slug])).status_code == 404


def test_reproduce_marks_its_project_as_reproducing_the_corpus(tmp_path):
    """A small stand-in for the corpus's files: the command sets the project option."""
    args = ["arg_id\ttopic\tdebate_title\tstance\tauthor\ttext"]
    args += [f"a{i}\tt1\tUniforms?\tGood\tx\tArgument number {i} about uniforms." for i in range(4)]
    (tmp_path / "arguments.tsv").write_text("\n".join(args) + "\n")
    rows = ["topic\tpair_id\targ1\targ2\tworker\tlabel\treason"]
    rows += [f"t1\ta{i}_a{j}\ta{i}\ta{j}\tw{w}\ta1\treason {w} {i} {j}" for i in range(4) for j in range(i + 1, 4) for w in range(3)]
    (tmp_path / "assignments.tsv.gz").write_bytes(gzip.compress(("\n".join(rows) + "\n").encode()))
    call_command("reproduce_ukpconvarg", str(tmp_path), "--project", "mini", "--param", "mace_restarts=2",
                 "--param", "mace_iterations=20", stdout=io.StringIO())
    assert Project.objects.get(slug="mini").options["reference_corpus"] == "ukpconvarg1"


def _table1_cells(body: str) -> dict[str, str]:
    """The Table 1 cells of the page by their test id (``t1-<scenario>-<strategy>-<source>-<field>``)."""
    return dict(re.findall(r'data-testid="(t1-[^"]+)">([^<]*)<', body))


def test_table1_of_the_paper_beside_this_project(admin, gold):
    url = reverse("gold-page", args=[gold.project.slug])
    cells = _table1_cells(admin.get(url).content.decode())
    assert not [k for k in cells if "-paper-" in k]  # no published figures beside an unrelated project
    Project.objects.filter(pk=gold.project.pk).update(options={"reference_corpus": "ukpconvarg1"})
    body = admin.get(url).content.decode()
    cells = _table1_cells(body)
    # The paper's values as printed in its Table 1 (scenario "No equivalency pairs", "All pairs").
    assert [cells[f"t1-no-equal-descending-paper-{f}"] for f in
            ("transitivity_mean", "transitivity_max", "pairs_kept", "pairs_ignored")] == ["10.8", "24.0", "364", "35"]
    assert [cells[f"t1-equal-merged-ascending-paper-{f}"] for f in
            ("transitivity_mean", "transitivity_max", "pairs_kept", "pairs_ignored")] == ["5.9", "13.2", "294", "208"]
    assert cells["t1-equal-merged-random-paper-largest_cluster"] == "—"
    # And this project's, from its run, in the row beside them.
    mean = {(r["scenario"], r["strategy"]): r for r in gold.result["table1"]["mean"]}
    for (scenario, strategy), row in mean.items():
        key = f"t1-{scenario.replace(' ', '-')}-{strategy}-ours-"
        for field in ("transitivity_mean", "transitivity_max", "pairs_kept", "pairs_ignored"):
            assert cells[key + field] == f"{row[field]:.2f}", (key, field)
    assert body.count('<td class="source">paper</td>') == 6 and body.count('<td class="source">this project</td>') == 6


def test_mace_settings_are_not_attributed_to_the_paper():
    params = {p.name: p for p in PairwiseGoldReport.params}
    for name in ("mace_em", "mace_iterations", "mace_restarts"):
        assert "paper" not in params[name].help, params[name].help
    # The paper states the threshold; the iterations and restarts are those its authors' code passed.
    assert "the paper: 0.95" in params["mace_threshold"].help
    assert "released pipeline: 500" in params["mace_iterations"].help
    assert "MACE's own default: 50" in params["mace_iterations"].help
    assert "released pipeline: 50" in params["mace_restarts"].help
    assert "MACE's own default: 10" in params["mace_restarts"].help


@pytest.mark.django_db(transaction=True)
def test_a_rejection_stands_when_the_recompute_cannot_be_queued(client, gold, monkeypatch):
    """The rejection is stored before the recompute is queued: with the job queue away, the page
    says that the work was rejected and which run to restart, instead of a 503 asking to try
    again (which would find nothing left to reject)."""
    from kombu.exceptions import OperationalError as BrokerError

    from analysis import services

    def away(pk):
        raise BrokerError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(services, "_send", away)
    client.force_login(UserFactory(role="admin"))
    spammer = get_user_model().objects.get(username="mturk+spammer")
    response = client.post(reverse("gold-reject-worker", args=[gold.project.slug, spammer.pk]), follow=True)
    assert response.status_code == 200
    run = AnalysisRun.objects.exclude(pk=gold.pk).get()
    assert run.status == "failed" and "The job queue could not be reached" in run.error
    body = response.content.decode()
    assert "Rejected 30 assignments of mturk+spammer, but the job queue could not be reached" in body
    assert f"Restart run #{run.pk} once the job queue is back" in body
    assert Assignment.objects.filter(worker=spammer, status="rejected").count() == 30
