"""The staff pages in Chromium: what the parameter form really posts, the graph leading to the
ranking, and the overview's search surviving paging."""

import pytest
from django.http import QueryDict
from playwright.sync_api import expect

from analysis.reports import get_report
from analysis.services import analysis_run_create
from annotation.models import Annotation
from tests.analysis.test_pairwise_gold import FAST, build_project
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def logged_in(browser, live_server, username):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-for-tests")
    page.click("button[type=submit]")
    expect(page.get_by_role("link", name="Log out").or_(page.get_by_role("button", name="Log out"))).to_be_visible()
    return page


def test_the_gold_form_posts_what_was_chosen(live_server, browser):
    project, _ = build_project()
    UserFactory(username="boss", role="admin")
    page = logged_in(browser, live_server, "boss")
    posted = []

    def capture(route):
        posted.append(route.request.post_data)
        route.fulfill(status=204)

    page.route("**/analysis/run/", capture)
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
    assert data["kind"] == "pairwise_gold" and data["next"] == "gold-page"
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


def test_the_worker_search_survives_paging(live_server, browser):
    project = ProjectFactory()
    for n in range(55):
        a = AssignmentFactory(item=ItemFactory(project=project), worker=UserFactory(username=f"pool-{n:02d}"),
                              status="submitted")
        Annotation.objects.create(assignment=a, answer={"label": "a1", "standpoint": "none"}, seconds=4.0)
    AssignmentFactory(item=ItemFactory(project=project), worker=UserFactory(username="loner"), status="submitted")
    UserFactory(username="watcher", role="researcher")
    page = logged_in(browser, live_server, "watcher")
    page.goto(f"{live_server.url}/projects/{project.slug}/overview/")
    page.get_by_label("Find a worker").fill("pool")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_test_id("worker-count")).to_have_text("55 workers match “pool”.")
    page.locator("#workers").get_by_role("link", name="next →").click()
    expect(page.locator("#workers .pager")).to_contain_text("workers 51–55 of 55")
    assert "wq=pool" in page.url and "loner" not in page.locator("#workers table").inner_text()
    page.close()
