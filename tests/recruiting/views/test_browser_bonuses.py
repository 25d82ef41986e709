"""The bonuses page in Chromium: an admin ticks an owed bonus, pays it through (the fake)
Prolific and sees its state; the pay per hour warns below Prolific's minimum. Screenshots go to
$BONUS_SHOTS (if set) for a look."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Annotation, Assignment
from recruiting.services.project_pay import project_pay_set
from tests.factories import AssignmentFactory, ItemFactory, UserFactory
from tests.support.bonus_pay import prolific_ledger
from tests.support.fake_prolific_bonuses import paid_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shot(page, name: str) -> None:
    folder = os.environ.get("BONUS_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True, caret="initial")


def test_paying_a_ticked_bonus_through_prolific(live_server, browser, fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific, amounts=("1.50", "0.25"))
    a = AssignmentFactory(item=ItemFactory(project=project), status=Assignment.Status.SUBMITTED)
    Annotation.objects.create(assignment=a, answer={"label": "a1"}, seconds=60)
    project_pay_set(project=project, reward_per_item="0.05", currency="GBP", actor=None)
    UserFactory(username="payer", role="admin")
    page = browser.new_page()
    page.set_default_timeout(15_000)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill("payer")
    page.locator("#id_password").fill("pw-for-tests")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Your projects")).to_be_visible()
    page.goto(f"{live_server.url}/projects/{project.slug}/bonuses/")
    expect(page.get_by_test_id("pay-warning")).to_contain_text("3.00 GBP per hour is below Prolific's minimum")
    page.get_by_label(f"pay bonus {bonuses[1].pk}").check()
    page.get_by_test_id("pay-selected").click()
    expect(page.get_by_role("status")).to_contain_text("Payment queued")
    expect(page.get_by_test_id(f"bonus-{bonuses[1].pk}").get_by_test_id("state")).to_have_text("Paid")
    expect(page.get_by_test_id(f"bonus-{bonuses[0].pk}").get_by_test_id("state")).to_have_text("Owed")
    shot(page, "bonuses-paid-one")
    assert paid_to(fake_prolific, pids[1]) == [25] and paid_to(fake_prolific, pids[0]) == []
    assert errors == []
    page.close()
