"""The "Report a problem" disclosure in Chromium: a worker reports the item in front of them,
gets the next one in place, and staff see the report and withdraw the item."""

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment, Item, ItemKind
from quality.models import ItemFlag
from tests.annotation.views.test_browser_annotator_page import logged_in
from tests.factories import ItemFactory, ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_worker_reports_an_item_and_staff_withdraw_it(live_server, browser):
    project = ProjectFactory(name="Reports", redundancy=1)
    ItemFactory.create_batch(2, project=project)
    context, page = logged_in(browser, live_server, "reporter")
    page.goto(f"{live_server.url}/projects/{project.slug}/annotate/")
    first = page.locator("#task-form").get_attribute("data-assignment")
    page.get_by_text("Report a problem with this item").click()
    page.get_by_label("What is wrong").select_option("text")
    # Typing here is text, not shortcuts of the item's form.
    page.get_by_label("Describe it").fill("The second argument stops after three words.")
    page.get_by_test_id("flag-submit").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Thank you for the report")
    expect(page.locator("#task-form")).not_to_have_attribute("data-assignment", first)
    flag = ItemFlag.objects.get()
    assert flag.assignment_id == int(first) and Assignment.objects.get(pk=first).status == "returned"
    context.close()

    context, staff = logged_in(browser, live_server, "staff-admin", role="admin")
    staff.goto(f"{live_server.url}/projects/{project.slug}/overview/")
    staff.get_by_test_id("open-flags").get_by_role("link").click()
    expect(staff.get_by_test_id("flag-row")).to_contain_text("The second argument stops after three words.")
    staff.get_by_role("button", name="Withdraw").click()
    # A confirmation first, saying what the withdrawal does.
    expect(staff.get_by_test_id("withdraw-effects")).to_contain_text("open report is resolved")
    assert Item.objects.get(pk=flag.item_id).kind == ItemKind.REAL
    staff.get_by_test_id("withdraw-confirm").click()
    expect(staff.get_by_role("status").filter(has_text="withdrawn")).to_be_visible()
    assert Item.objects.get(pk=flag.item_id).kind == ItemKind.WITHDRAWN
    staff.get_by_test_id("withdraw-undo").click()
    expect(staff.get_by_role("status").filter(has_text="undone")).to_be_visible()
    assert Item.objects.get(pk=flag.item_id).kind == ItemKind.REAL
    context.close()
