"""The worker page in Chromium at a laptop's and a phone's width: nothing wider than the screen
(answers, gold rounds and decisions in words, the position-bias figure), and the figure loads."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from annotation.models import Purpose
from quality.models import CheckResult, QualityRule, RuleDecision, TrainingRound
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality.views.test_worker_page import answered, drawn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SIZES = {"laptop": {"viewport": {"width": 1366, "height": 900}},
         "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}}


@pytest.fixture
def busy_worker():
    """A worker with a long name, answers shown in drawn orders, a qualification round, a gold
    answer and a rule decision: every part of the page that could be wide."""
    project = ProjectFactory(redundancy=3, name="A project whose name is long enough to wrap on a phone screen")
    me = UserFactory(username="mturk+A3QGFLKL2G6NJJ-a-long-worker-id")
    now = timezone.now()
    round_ = TrainingRound.objects.create(project=project, worker=me, kind="qualification", number=1, items=2,
                                          pass_mark=0.8, answered=2, right=1, passed=False, started_at=now)
    for n in range(12):
        purpose = Purpose.TRAINING if n < 2 else Purpose.GOLD if n == 2 else Purpose.TASK
        sides = ("a2", "a1") if n % 2 else ("a1", "a2")
        a = drawn(answered(ItemFactory(project=project), me, sides[0], purpose=purpose,
                           signals={"pasted": 40, "hidden_ms": 2500, "blurs": 2, "webdriver": n == 3}), *sides)
        if purpose != Purpose.TASK:
            CheckResult.objects.create(assignment=a, project=project, worker=me, purpose=purpose,
                                       round=round_ if purpose == Purpose.TRAINING else None, score=float(n != 1),
                                       right=n != 1, method="exact", expected={"label": "a1"}, scored_at=now)
    rule = QualityRule.objects.create(project=project, kind="position_bias", action="review", threshold=0.2)
    RuleDecision.objects.create(project=project, worker=me, rule=rule, kind=rule.kind, action=rule.action, evidence={
        "answers": 9, "chose_first": 9, "share": 1.0, "low": 0.7008, "high": 1.0, "expected": 0.5, "excess": 0.2008,
        "threshold": 0.2, "run": 7}, trigger="analysis run 7", decided_at=now)
    UserFactory(username="staff-for-the-worker-page", role="admin")
    return project, me


@pytest.mark.parametrize("size", SIZES)
def test_the_worker_page_fits_the_screen_and_shows_its_figure(live_server, browser, busy_worker, size):
    project, me = busy_worker
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill("staff-for-the-worker-page")
    page.locator("#id_password").fill("pw-for-tests")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Manage")).to_be_visible()
    page.goto(f"{live_server.url}/projects/{project.slug}/workers/{me.pk}/")
    expect(page.get_by_test_id("crowd").get_by_test_id("agreement")).to_be_visible()  # the second request came
    expect(page.get_by_test_id("position-words")).to_contain_text("with no position bias the drawn orders predict 50%")
    figure = page.locator("#position figure img")
    figure.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
    box = figure.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["viewport"]["width"], box
    expect(page.get_by_test_id("decision")).to_contain_text("Chose the option shown first in 9 of 9 answers (100%, interval 70–100%)")
    expect(page.get_by_test_id("check-group").first).to_contain_text("Qualification #1")
    expect(page.get_by_test_id("seen").first).to_contain_text("A1 is more convincing")
    # A phone's browser widens its layout to fit what is too wide (innerWidth grows past 390),
    # so the page must be no wider than the screen itself, not merely than the layout.
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1] == SIZES[size]["viewport"]["width"], widths
    assert errors == []
    context.close()
