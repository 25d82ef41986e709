"""The gold page in Chromium: what the parameter form really posts, and the graph leading to the
ranking."""

import pytest
from django.http import QueryDict
from playwright.sync_api import expect

from analysis.reports import get_report
from analysis.services import analysis_run_create
from task_types.pairwise.tests.test_report import FAST, build_project
from tests.analysis.test_staff_browser import logged_in
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gold_form_posts_what_was_chosen(live_server, browser):
    project, _ = build_project()
    UserFactory(username="boss", role="admin")
    page = logged_in(browser, live_server, "boss")
    posted = []

    def capture(route):
        if route.request.method != "POST":
            route.continue_()
            return
        posted.append(route.request.post_data)
        route.fulfill(status=204)

    page.route(f"**/projects/{project.slug}/gold/", capture)
    page.goto(f"{live_server.url}/projects/{project.slug}/gold/")
    expect(page.get_by_label("Estimate MACE by EM")).to_be_checked()
    page.get_by_label("Estimate MACE by EM").uncheck()
    page.get_by_label("Restarts").fill("0")  # below the minimum: the browser refuses to send it
    page.get_by_role("button", name="Compute the gold data").click()
    page.wait_for_timeout(300)
    assert posted == []
    page.get_by_label("Restarts").fill("7")
    page.get_by_label("Share of pairs labelled").fill("0.9")
    page.get_by_role("button", name="Compute the gold data").click()
    page.wait_for_timeout(300)
    assert len(posted) == 1
    data = QueryDict(posted[0])
    assert data["action"] == "start"
    params = get_report("pairwise_gold").clean_params(
        {k[len("param_"):]: v for k, v in data.items() if k.startswith("param_")})
    assert params["mace_em"] is False and params["mace_restarts"] == 7 and params["mace_threshold"] == 0.9
    assert params["mace_iterations"] == 500  # untouched: the default
    page.close()


def test_an_argument_in_the_graph_leads_to_its_ranking_row(live_server, browser):
    project, _ = build_project()
    run = analysis_run_create(project=project, kind="pairwise_gold", params=FAST)
    run.refresh_from_db()
    assert run.status == "done", run.error
    UserFactory(username="reader", role="researcher")
    page = logged_in(browser, live_server, "reader")
    page.goto(f"{live_server.url}/projects/{project.slug}/gold/?topic=t_good")
    node = page.locator("svg.argument-graph g.graph-node", has_text="t_good_5")
    expect(node.locator("title")).to_have_text("t_good_5 (rank 1): Argument 5 of t_good, with many words here.")
    node.locator("a").click()
    assert page.url.endswith("#rank-t_good_5")
    expect(page.locator("tr:target")).to_contain_text("Argument 5 of t_good")
    page.close()
