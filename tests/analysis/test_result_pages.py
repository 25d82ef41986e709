"""The agreement dashboard and the gold page explain themselves: why there are no results,
parameter forms that the page itself reads (``action=start``, ``param_<name>``), competence
ranks that say what they rest on, every number of answers in the votes figure, time zones on
axes."""

import csv
import io
from html.parser import HTMLParser

import pandas as pd
import pytest
from django.http import QueryDict
from django.test import override_settings
from django.urls import reverse
from django.utils.html import escape

from analysis import plots
from analysis.models import AnalysisRun
from analysis.reports import ReportInput, get_report, report_kinds, report_pages
from analysis.reports.agreement import FEW_ANNOTATIONS
from analysis.services import analysis_run_create
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


class FormReader(HTMLParser):
    """What a browser would send for the forms of a page, as (name, value) pairs per form."""

    def __init__(self):
        super().__init__()
        self.forms, self.current, self.select = [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.current = {"action": a.get("action"), "fields": [], "inputs": []}
            self.forms.append(self.current)
        elif self.current is None:
            return
        elif tag == "input":
            self.current["inputs"].append(a)
            if a.get("type") == "checkbox" and "checked" not in a:
                return
            if a.get("name"):
                self.current["fields"].append((a["name"], a.get("value", "")))
        elif tag == "select":
            self.select = a["name"]
            self.current["inputs"].append(a)
        elif tag == "option" and self.select and "selected" in a:
            self.current["fields"].append((self.select, a["value"]))

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None
        elif tag == "select":
            self.select = None


def start_forms(body: str) -> list[dict]:
    reader = FormReader()
    reader.feed(body)
    return [f for f in reader.forms if ("action", "start") in f["fields"]]


def start_form(body: str) -> dict:
    forms = start_forms(body)
    assert len(forms) == 1
    return forms[0]


def submitted_params(form: dict) -> dict:
    """The parameters a start view reading ``param_<name>`` fields gets (last value wins, as
    ``QueryDict.get`` and ``.items()`` give it)."""
    data = QueryDict(mutable=True)
    for name, value in form["fields"]:
        data.appendlist(name, value)
    return {k[len("param_"):]: v for k, v in data.items() if k.startswith("param_") and v != ""}


@pytest.fixture
def researcher(client):
    client.force_login(UserFactory(role="researcher", username="rita"))
    return client


@pytest.fixture
def admin(client):
    client.force_login(UserFactory(role="admin", username="ada"))
    return client


def test_every_parameter_has_a_label_and_a_group():
    for kind, _ in report_kinds():
        report = get_report(kind)
        for p in report.params:
            assert p.label and p.group, f"{report.kind}.{p.name}"
    assert dict(report_pages("pairwise")) == {"analysis-dashboard": "Agreement and workers", "gold-page": "Gold data",
                                              "report:position_bias": "Position bias"}
    # Response scoring shows no options in a drawn order: no position-bias page.
    assert "report:position_bias" not in dict(report_pages("response_scoring"))
    assert report_pages("pairwise")[0][0] == "analysis-dashboard"


@pytest.mark.parametrize("page, kind", [("analysis-dashboard", "agreement"), ("gold-page", "pairwise_gold")])
def test_parameter_forms_post_param_fields_to_their_own_page(admin, annotated_project, page, kind):
    url = reverse(page, args=[annotated_project.slug])
    body = admin.get(url).content.decode()
    form = start_form(body)
    assert form["action"] == url and {name for name, _ in form["fields"]} - {"csrfmiddlewaretoken", "action"} == {
        f"param_{p.name}" for p in get_report(kind).params}
    report = get_report(kind)
    names = {i["name"] for i in form["inputs"] if i.get("name", "").startswith("param_")}
    assert names == {f"param_{p.name}" for p in report.params}
    by_name = {}
    for i in form["inputs"]:
        by_name.setdefault(i.get("name"), []).append(i)
    for p in report.params:
        inputs = by_name[f"param_{p.name}"]
        assert f'for="id_param_{p.name}"' in body and escape(p.label) in body
        if p.type is bool:
            assert [i.get("type") for i in inputs] == ["hidden", "checkbox"] and inputs[0]["value"] == "false"
        elif p.choices:
            assert "type" not in inputs[0]  # a select
        else:
            assert inputs[0]["type"] == "number" and inputs[0]["step"] == ("1" if p.type is int else "any")
            if p.minimum is not None:
                assert float(inputs[0]["min"]) == p.minimum
            if p.maximum is not None:
                assert float(inputs[0]["max"]) == p.maximum
    # What the browser sends as it stands is exactly the defaults.
    assert report.clean_params(submitted_params(form)) == report.clean_params({})


def test_an_unticked_box_is_sent_as_false(admin, annotated_project):
    body = admin.get(reverse("gold-page", args=[annotated_project.slug])).content.decode()
    form = start_form(body)
    assert ("param_mace_em", "true") in form["fields"]  # ticked: the default
    form["fields"] = [f for f in form["fields"] if f != ("param_mace_em", "true")]  # untick it
    assert get_report("pairwise_gold").clean_params(submitted_params(form))["mace_em"] is False


def test_forms_show_the_shown_runs_values_and_the_defaults(admin, annotated_project):
    AnalysisRun.objects.create(project=annotated_project, kind="agreement", status="done", result={"empty": True},
                               params={**get_report("agreement").clean_params({}), "n_boot": 17, "mace_em": True})
    body = admin.get(reverse("analysis-dashboard", args=[annotated_project.slug])).content.decode()
    form = start_form(body)
    assert submitted_params(form)["n_boot"] == "17" and submitted_params(form)["mace_em"] == "true"
    assert "Default: 200; 0 to 5000. <strong>Changed.</strong>" in body
    assert "<legend>Worker competence (MACE)</legend>" in body


def test_a_researcher_learns_why_there_is_nothing_yet(researcher, db):
    UserFactory(role="admin", username="ada")
    empty = ProjectFactory()
    body = researcher.get(reverse("analysis-dashboard", args=[empty.slug])).content.decode()
    assert "No analysis yet. There is nothing to analyse: no annotator has answered an item." in body
    assert start_forms(body) == []


def test_a_researcher_learns_who_can_compute(researcher, annotated_project):
    UserFactory(role="admin", username="ada")
    for url in (reverse("analysis-dashboard", args=[annotated_project.slug]), reverse("gold-page", args=[annotated_project.slug])):
        body = researcher.get(url).content.decode()
        assert "It has not been computed (18 annotations so far)." in body
        assert "ada can compute it: your role can view results but not start analysis runs." in body
        assert start_forms(body) == []


def test_a_failed_run_says_why_and_who_can_restart_it(researcher, annotated_project, client):
    UserFactory(role="admin", username="ada")
    AnalysisRun.objects.create(project=annotated_project, kind="agreement", status="failed",
                               error="MemoryError: the frame did not fit")
    url = reverse("analysis-dashboard", args=[annotated_project.slug])
    body = researcher.get(url).content.decode()
    assert "failed" in body and "MemoryError: the frame did not fit" in body
    assert "ada can restart it or start a new run" in body and "Restart it</button>" not in body
    client.force_login(UserFactory(role="admin"))
    assert "Restart it</button>" in client.get(url).content.decode()


def test_ranks_from_few_annotations_are_flagged_in_the_table_and_csv(admin, annotated_project, django_capture_on_commit_callbacks):
    # w0 and w1 answer 5 items here, w2 and w3 answer 4: a minimum of 5 flags the last two.
    with django_capture_on_commit_callbacks(execute=True):
        run = analysis_run_create(project=annotated_project, kind="agreement", params={"min_annotations": 5, "n_boot": 0})
    run.refresh_from_db()
    assert run.status == "done", run.error
    assert {w["worker"]: w["annotations"] for w in run.result["workers"]} == {"w0": 5, "w1": 5, "w2": 4, "w3": 4}
    url = reverse("analysis-dashboard", args=[annotated_project.slug])
    body = admin.get(url).content.decode()
    assert body.count('<span class="badge" title="This rank rests on 4 annotations, fewer than 5">few</span>') == 2
    assert body.count("title=\"This rank rests on") == 2
    assert [w["worker"] for w in admin.get(url, {"trusted": "1"}).context["workers"]] == ["w0", "w1"]
    raw = admin.get(reverse("analysis-workers-csv", args=[annotated_project.slug, run.pk])).content.decode()
    flagged = {r["worker"]: FEW_ANNOTATIONS in r["flags"] for r in csv.DictReader(io.StringIO(raw))}
    assert flagged == {"w0": False, "w1": False, "w2": True, "w3": True}


def test_the_worker_table_of_the_report_flags_few_annotations():
    frame = pd.DataFrame([(f"i{i}", w, "a1" if i % 3 else "a2", 5.0)
                          for i in range(12) for w in (["many1", "many2"] + (["few"] if i < 3 else []))],
                         columns=["item", "worker", "label", "seconds"])
    data = ReportInput(frame=frame, items=pd.DataFrame({"item": sorted(frame["item"].unique())}),
                       task_type="pairwise", redundancy=3)
    report = get_report("agreement")
    result = report.run(data, report.clean_params({"n_boot": 0, "min_annotations": 10}), lambda f, s: None)
    flags = {w["worker"]: w["flags"] for w in result["workers"]}
    assert FEW_ANNOTATIONS in flags["few"] and FEW_ANNOTATIONS not in flags["many1"]


def test_the_votes_figure_shows_every_number_of_answers():
    votes = {"a1": {"4": [52, 52, 32, 30, 24], "5": [4325, 3518, 2880, 2391, 2019, 1604]},
             "a2": {"4": [57, 47, 35, 25, 26], "5": [4399, 3481, 2947, 2368, 1994, 1548]},
             "equal": {"4": [83, 70, 21, 14, 2], "5": [5995, 5409, 3222, 1479, 507, 125]}}
    svg = plots.votes_svg(votes)
    assert "190 items with 4 answers" in svg and "16,737 items with 5 answers" in svg
    assert "votes for the label (of 4)" in svg and "votes for the label (of 5)" in svg
    one = plots.votes_svg({"yes": {"1": [0, 1]}, "no": {"1": [1, 0]}})
    assert "1 item with 1 answer" in one


@override_settings(TIME_ZONE="Europe/Berlin")
def test_time_axes_name_the_time_zone(admin, annotated_project):
    svg = admin.get(reverse("analysis-hourly", args=[annotated_project.slug])).content.decode()
    assert "hour of submission (Europe/Berlin)" in svg
    body = admin.get(reverse("analysis-dashboard", args=[annotated_project.slug])).content.decode()
    assert "hours in Europe/Berlin" in body


def test_runs_from_before_the_minimum_and_odd_parameters(admin, annotated_project):
    # A result stored before the report had min_annotations: ranks are judged by the default.
    workers = [{"worker": "old", "annotations": 3, "rank": 1, "competence": 0.9, "agreement_with_mace": 1.0,
                "median_seconds": 2.0, "flags": []},
               {"worker": "busy", "annotations": 30, "rank": 2, "competence": 0.8, "agreement_with_mace": 0.9,
                "median_seconds": 5.0, "flags": ["fast"]}]
    AnalysisRun.objects.create(project=annotated_project, kind="agreement", status="done",
                               result={"figures": {}, "workers": workers, "mace": {"method": "EM"}})
    url = reverse("analysis-dashboard", args=[annotated_project.slug])
    assert [w["worker"] for w in admin.get(url, {"trusted": "1"}).context["workers"]] == ["busy"]
    body = admin.get(url).content.decode()
    assert body.count('title="This rank rests on') == 1 and "fewer than 10" in body
    for params in ({"page": "abc"}, {"page": "999"}, {"sort": "<x>", "dir": "sideways"}, {"trusted": "yes"}):
        assert admin.get(url, params).status_code == 200, params
