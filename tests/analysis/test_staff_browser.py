"""The staff pages in Chromium: the overview's search surviving paging."""

import pytest
from playwright.sync_api import expect

from annotation.models import Annotation
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
