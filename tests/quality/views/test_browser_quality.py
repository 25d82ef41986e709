"""Quality control in Chromium: a worker who fails the qualification and sees the clear page;
one who passes it, answers gold questions with feedback shown, and is blocked by the project's
gold-accuracy rule. Screenshots go to $QUALITY_SHOTS (if set) for a look."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import ItemKind, Standing
from quality.models import QualityRule, RuleDecision, TrainingRound, WorkerStanding
from quality.services import check_serving
from tests.annotation.views.test_browser import held, open_page
from tests.factories import ItemFactory, ProjectFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
REASON = "A1 gives a concrete example while A2 stays vague."


def shot(page, name: str) -> None:
    folder = os.environ.get("QUALITY_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        # Playwright hides the caret with an injected style, which the Content-Security-Policy blocks.
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True, caret="initial")


def answer(page, username: str, label: str) -> None:
    """Answer the held pairwise item with ``label`` (a1 or a2), by the keys of its drawn sides."""
    sides = held(username).shown_order["sides"]
    page.keyboard.press("s")
    page.keyboard.press("1" if sides[0] == label else "2")
    page.keyboard.type(REASON)
    page.keyboard.press("Control+Enter")


def in_view(page, test_id: str) -> bool:
    """Whether the element is wholly inside the window as it is scrolled now."""
    box = page.get_by_test_id(test_id).bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


def go_on(page) -> None:
    """Read the feedback beside its item, then Continue to the next page."""
    expect(page.get_by_test_id("answered-item")).to_be_visible()
    assert in_view(page, "feedback") and in_view(page, "continue")
    page.get_by_test_id("continue").click()
    expect(page.get_by_test_id("feedback")).to_have_count(0)


def test_a_worker_who_fails_the_qualification_sees_a_clear_page(live_server, browser):
    project = ProjectFactory(name="Qualified work")
    quality_policy(project, qualification_items=2, qualification_attempts=2, qualification_pass=1.0,
                   training_feedback="after_each")
    for n in range(4):
        check_item(project, kind=ItemKind.TRAINING, answer={"label": "a1"}, explanation=f"A1 names its source ({n}).")
    ItemFactory(project=project)
    page = open_page(browser, live_server, project, username="failing")
    expect(page.get_by_test_id("training-round")).to_contain_text("Qualification: item 1 of 2.")
    shot(page, "qualification-item")
    answer(page, "failing", "a2")
    feedback = page.get_by_test_id("feedback")
    expect(feedback).to_contain_text("Not quite.")
    expect(feedback).to_contain_text(re.compile(r"A1 names its source \(\d\)\."))
    shot(page, "qualification-feedback")
    go_on(page)
    expect(page.get_by_test_id("training-round")).to_contain_text("item 2 of 2")
    answer(page, "failing", "a2")
    go_on(page)
    expect(page.get_by_test_id("qualification-failed")).to_be_visible()
    expect(page.get_by_text("1 attempt left")).to_be_visible()
    shot(page, "qualification-failed")
    page.get_by_test_id("try-again").click()
    expect(page.get_by_test_id("training-round")).to_contain_text("Qualification: item 1 of 2.")
    for _ in range(2):
        answer(page, "failing", "a2")
        expect(page.get_by_test_id("feedback")).to_be_visible()
        go_on(page)
    expect(page.get_by_test_id("screened-out")).to_have_text("You did not qualify for this project")
    assert page.locator("#task-form").count() == 0
    shot(page, "screened-out")
    assert WorkerStanding.objects.get(worker__username="failing").state == Standing.SCREENED_OUT
    assert list(TrainingRound.objects.order_by("number").values_list("passed", flat=True)) == [False, False]
    assert page.errors == []


def test_a_worker_who_qualifies_gets_gold_feedback_and_is_blocked_by_a_rule(live_server, browser, monkeypatch):
    monkeypatch.setattr(check_serving, "draw", lambda: 0.0)  # a gold question whenever one is left
    project = ProjectFactory(name="Checked work")
    quality_policy(project, qualification_items=1, qualification_pass=1.0, gold_rate=0.2, gold_feedback=True)
    # A bar of perfect accuracy: its sequential test decides on a wrong gold answer (after min_answers).
    QualityRule.objects.create(project=project, kind=QualityRule.Kind.GOLD_ACCURACY, action=QualityRule.Action.BLOCK,
                               threshold=1.0, min_answers=2, confidence=0.95)
    check_item(project, kind=ItemKind.TRAINING, answer={"label": "a1"}, explanation="A1 gives numbers.")
    for _ in range(3):
        check_item(project, answer={"label": "a1"}, explanation="A1 cites a study; A2 only asserts.")
    ItemFactory.create_batch(2, project=project)
    page = open_page(browser, live_server, project, username="passing")
    expect(page.get_by_test_id("training-round")).to_be_visible()
    answer(page, "passing", "a1")
    expect(page.get_by_test_id("feedback")).to_contain_text("Right.")
    go_on(page)
    # Qualified: the next item carries no training note, and looks like any other.
    expect(page.get_by_test_id("training-round")).to_have_count(0)
    assert WorkerStanding.objects.get(worker__username="passing").state == Standing.ACTIVE
    answer(page, "passing", "a2")
    feedback = page.get_by_test_id("feedback")
    expect(feedback).to_contain_text("check question with a known answer")
    expect(page.get_by_test_id("feedback-why")).to_have_text("A1 cites a study; A2 only asserts.")
    shot(page, "gold-feedback")
    go_on(page)
    answer(page, "passing", "a2")
    # 0 of 2 right against a bar of 100%: infinitely likelier below the bar, so the rule blocks;
    # the feedback on that answer comes first, beside its item.
    expect(page.get_by_test_id("feedback")).to_be_visible()
    go_on(page)
    expect(page.get_by_test_id("blocked-here")).to_be_visible()
    shot(page, "blocked")
    decision = RuleDecision.objects.get()
    assert decision.evidence["answered"] == 2 and decision.evidence["llr"] is None
    page.reload()
    expect(page.get_by_test_id("blocked-here")).to_have_text("You can no longer take items in this project")
    assert page.errors == []


def test_feedback_on_a_long_item_stays_beside_it_with_continue_in_view_at_1366_by_900(live_server, browser):
    """The item the feedback is about stays on screen above it, and the feedback with Continue
    is docked in the window however long the item."""
    long_text = " ".join(["Uniforms cost families money they could spend on books and trips."] * 40)
    project = ProjectFactory(name="Long arguments")
    quality_policy(project, qualification_items=1, qualification_pass=1.0, training_feedback="after_each")
    item = check_item(project, kind=ItemKind.TRAINING, answer={"label": "a1"},
                      explanation="A1 names the cost; A2 repeats it at length.")
    item.payload = {**item.payload, "arg1": {**item.payload["arg1"], "text": long_text},
                    "arg2": {**item.payload["arg2"], "text": long_text}}
    item.save(update_fields=["payload"])
    ItemFactory(project=project)
    page = open_page(browser, live_server, project, username="long-reader")
    page.set_viewport_size({"width": 1366, "height": 900})
    answer(page, "long-reader", "a2")
    expect(page.get_by_test_id("feedback")).to_contain_text("Not quite.")
    expect(page.get_by_test_id("answered-item")).to_contain_text("Uniforms cost families money")
    # "Your answer" reads as the option ticked on the item above it, whichever way the sides were drawn.
    ticked = page.locator('[data-testid="answered-item"] label:has(input[name="label"]:checked)').inner_text()
    assert page.get_by_test_id("feedback-given").inner_text() in ticked
    assert page.evaluate("document.documentElement.scrollHeight") > 900  # the item is longer than the window
    assert in_view(page, "feedback") and in_view(page, "continue")
    page.mouse.wheel(0, 600)
    assert in_view(page, "feedback") and in_view(page, "continue")
    folder = os.environ.get("QUALITY_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / "feedback-1366x900.png"), caret="initial")
    go_on(page)
    # Its only training item answered wrong: no attempt can follow.
    expect(page.get_by_test_id("screened-out")).to_be_visible()
    assert page.errors == []


def test_choosing_a_kind_in_the_new_rule_form_fills_in_its_defaults(live_server, browser):
    """The form starts from gold accuracy's settings; choosing competence brings competence's
    (the defaults the error rates were measured with), and the rule is stored with them."""
    from annotation.rule_defaults import DEFAULTS
    from tests.factories import UserFactory

    project = ProjectFactory()
    UserFactory(username="staff-for-rules", role="admin")
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill("staff-for-rules")
    page.locator("#id_password").fill("pw-for-tests")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Manage")).to_be_visible()
    page.goto(f"{live_server.url}/projects/{project.slug}/quality/rules/")
    form = page.get_by_test_id("add-rule")
    expect(form.locator("[name=threshold]")).to_have_value(str(DEFAULTS["gold_accuracy"]["threshold"]))
    form.locator("select[name=kind]").select_option("competence")
    expect(form.locator("[name=threshold]")).to_have_value(str(DEFAULTS["competence"]["threshold"]))
    expect(form.locator("[name=min_answers]")).to_have_value(str(DEFAULTS["competence"]["min_answers"]))
    form.get_by_role("button", name="Add the rule").click()
    expect(page.get_by_test_id("rules")).to_contain_text("MACE competence")
    rule = QualityRule.objects.get(project=project)
    assert (rule.kind, rule.threshold, rule.min_answers) == ("competence", DEFAULTS["competence"]["threshold"],
                                                            DEFAULTS["competence"]["min_answers"])
    assert errors == []
