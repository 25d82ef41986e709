"""An annotator in Chromium: the keyboard loop, keys that arrive before htmx is ready for a new
item, the checks before sending, and skipping."""

import pytest
from playwright.sync_api import expect

from annotation.models import Annotation, Assignment
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
REASONS = [
    "A1 gives a concrete example while A2 stays vague.",
    "A2 explains the cost argument with real numbers.",
    "Both make the same point with the same strength.",
]


def open_page(browser, live_server, project, username="kb-annotator"):
    """A logged-in annotator on the project's page, collecting console errors and the pages
    the browser loads as a whole (htmx requests do not count)."""
    UserFactory(username=username)
    page = browser.new_page()
    page.set_default_timeout(15_000)
    page.errors = []
    page.documents = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.documents.append((r.method, r.url)) if r.resource_type == "document" else None)
    page.goto(f"{live_server.url}/accounts/login/")
    # Filled, not typed: keys typed before the autofocus lands would miss the field.
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill("pw-for-tests")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Your projects")).to_be_visible()
    page.goto(f"{live_server.url}/projects/{project.slug}/annotate/")
    page.evaluate("window.__sameDocument = true")
    page.documents.clear()
    return page


def label_of_key(assignment, key: str) -> str:
    """What a key stores on the pairwise page of an assignment: 1 the argument shown left (A1), 2
    the one shown right, 3 equal; the sides are drawn per assignment."""
    return {"1": assignment.shown_order["sides"][0], "2": assignment.shown_order["sides"][1], "3": "equal"}[key]


def held(username: str = "kb-annotator") -> Assignment:
    return Assignment.objects.get(worker__username=username, status=Assignment.Status.ASSIGNED)


def answer_with_keys(page, key, reason):
    page.keyboard.press("s")  # my standpoint: same as the stance
    page.keyboard.press(key)  # the choice; focus moves to the reason
    page.keyboard.type(reason)
    page.keyboard.press("Control+Enter")


def test_three_hits_with_the_keyboard(live_server, browser):
    project = ProjectFactory(name="Keyboard project", redundancy=1)
    ItemFactory.create_batch(4, project=project)
    page = open_page(browser, live_server, project)
    expect(page.get_by_role("heading", level=1)).to_have_text("Keyboard project")

    done = page.get_by_test_id("done-count")
    for i, (key, reason) in enumerate(zip(["1", "2", "3"], REASONS, strict=True)):
        expect(done).to_have_text(str(i))
        page.keyboard.press("s")
        page.keyboard.press(key)
        page.keyboard.type(reason)
        expect(page.locator(".counter")).to_have_class("counter ok")
        page.keyboard.press("Control+Enter")
        expect(done).to_have_text(str(i + 1))
        notice = page.get_by_role("status").filter(has_text="Saved.")
        expect(notice).to_have_class("notice success")
        # Success looks like success: green, not the warning yellow.
        assert notice.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(227, 244, 232)"

    # htmx swapped each next item in: the page itself was never reloaded.
    assert page.evaluate("window.__sameDocument") is True and page.documents == []
    answers = list(Annotation.objects.order_by("pk"))
    assert [a.answer for a in answers] == [{"label": label_of_key(a.assignment, key), "standpoint": "same"}
                                           for a, key in zip(answers, "123", strict=True)]
    assert [a.reason for a in answers] == REASONS
    assert all(a.client["input"] == "keyboard" and a.seconds is not None for a in answers)
    assert page.errors == []

    page.goto(f"{live_server.url}/projects/")
    expect(page.get_by_text("you answered 3 items")).to_be_visible()
    expect(page.get_by_role("progressbar").first).to_have_attribute("aria-valuenow", "75.0")
    page.close()


def test_keys_before_htmx_takes_the_new_item_are_held_not_posted_as_a_page(live_server, browser):
    """htmx processes a swapped-in form only when the swap settles. Here settling takes 1.5 s, so
    the whole next answer, Ctrl+Enter included, is typed before htmx has taken the new form: the
    submission must wait for htmx instead of going out as a full-page POST."""
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(3, project=project)
    page = open_page(browser, live_server, project)
    page.evaluate("htmx.config.defaultSettleDelay = 1500")
    done = page.get_by_test_id("done-count")
    answer_with_keys(page, "1", REASONS[0])
    expect(done).to_have_text("1")
    # The new item is on screen but not settled: answer it at once.
    settled = page.evaluate("!!document.querySelector('#task-area.htmx-settling')")
    answer_with_keys(page, "2", REASONS[1])
    expect(done).to_have_text("2", timeout=10_000)
    assert settled, "the second answer was not typed inside the settle window"
    assert page.evaluate("window.__sameDocument") is True and page.documents == []
    answers = Annotation.objects.order_by("pk")
    assert [a.answer["label"] for a in answers] == [label_of_key(a.assignment, k) for a, k in zip(answers, "12", strict=True)]
    assert page.errors == []
    page.close()


def test_keys_pressed_while_a_request_is_under_way_apply_to_the_next_item(live_server, browser):
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(3, project=project)
    page = open_page(browser, live_server, project)
    # Every request leaves the browser 0.7 s late, as on a slow connection.
    page.evaluate("""() => {
        const send = XMLHttpRequest.prototype.send;
        XMLHttpRequest.prototype.send = function (...args) { setTimeout(() => send.apply(this, args), 700); };
    }""")
    answer_with_keys(page, "1", REASONS[0])
    page.keyboard.press("3")  # meant for the next item, pressed before it arrived
    page.keyboard.press("Control+Enter")  # a second press while the first is under way: dropped
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    expect(page.locator("input[name=label][value=equal]")).to_be_checked()
    assert Annotation.objects.count() == 1
    page.close()


def test_the_browser_checks_the_answer_before_sending_it(live_server, browser):
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(2, project=project)
    page = open_page(browser, live_server, project)
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    counter = page.locator(".counter")
    expect(counter).to_have_text("0 / 30–140 characters")

    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("Choose which argument is more convincing.")).to_be_visible()
    expect(page.get_by_text("The reason needs at least 30 characters (it has 0).")).to_be_visible()
    expect(page.get_by_text("Say what your own standpoint on the topic is.")).to_be_visible()
    expect(page.get_by_role("alert").filter(has_text="Please fix the marked fields.")).to_be_visible()
    expect(counter).to_have_class("counter bad")
    assert posts == []
    # The shortcuts still work after the message: the focus sits on the missing choice.
    page.keyboard.press("2")
    expect(page.locator(f"input[name=label][value={label_of_key(held(), '2')}]")).to_be_checked()
    expect(page.get_by_text("Choose which argument is more convincing.")).to_be_hidden()
    page.keyboard.type("Too short")  # the focus moved on to the reason
    expect(counter).to_have_text("9 / 30–140 characters")
    expect(counter).to_have_class("counter bad")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("The reason needs at least 30 characters (it has 9).")).to_be_visible()
    assert posts == []
    page.keyboard.type(" — A2 names the actual costs.")
    expect(counter).to_have_class("counter ok")
    expect(page.locator("[data-error]").filter(has_text="reason")).to_be_hidden()
    page.keyboard.press("Escape")
    page.keyboard.press("o")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    assert Annotation.objects.get().reason == "Too short — A2 names the actual costs."
    assert page.errors == []
    page.close()


def test_after_a_server_objection_the_counter_stays_red_and_the_keys_work(live_server, browser):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    page = open_page(browser, live_server, project)
    # Send what the browser would refuse, as an old page or another client might.
    page.evaluate("document.querySelectorAll('[data-validate]').forEach(e => e.removeAttribute('data-validate'))")
    page.keyboard.press("n")
    page.keyboard.press("r")
    page.keyboard.type("Short one")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("The reason needs at least 30 characters (it has 9).")).to_be_visible()
    counter = page.locator(".counter")
    expect(counter).to_have_class("counter bad")
    expect(page.get_by_text("Choose which argument is more convincing.")).to_be_visible()
    # The server's page put the focus on the missing choice, so "3" chooses, not types.
    page.keyboard.press("3")
    expect(page.locator("input[name=label][value=equal]")).to_be_checked()
    expect(page.locator("textarea")).to_have_value("Short one")
    expect(counter).to_have_class("counter bad")
    page.keyboard.type(", and A1 repeats itself in every line.")
    expect(counter).to_have_class("counter ok")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    assert Annotation.objects.get().answer == {"label": "equal", "standpoint": "none"}
    page.close()


def test_skipping_returns_the_item_without_errors(live_server, browser):
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(2, project=project)
    page = open_page(browser, live_server, project)
    first = page.get_by_test_id("prompt").inner_text()
    page.get_by_test_id("skip").click()
    expect(page.get_by_role("status").filter(has_text="Skipped")).to_be_visible()
    assert Assignment.objects.filter(status=Assignment.Status.RETURNED).count() == 1
    assert page.get_by_test_id("prompt").inner_text() == first  # same prompt text, next pair
    assert page.errors == [] and page.documents == []
    page.close()


def test_a_logged_out_session_keeps_the_answer_on_screen(live_server, browser):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    context = browser.new_context()
    page = open_page(context, live_server, project)
    page.keyboard.press("s")
    page.keyboard.press("1")
    page.keyboard.type(REASONS[0])
    context.clear_cookies(name="sessionid")  # the session ended, e.g. logged out in another tab
    page.keyboard.press("Control+Enter")
    expect(page.get_by_role("alert")).to_contain_text("You were logged out, so this was not saved.")
    # The login page was not swapped into the form: the answer is still there to send again.
    expect(page.locator("textarea")).to_have_value(REASONS[0])
    expect(page.locator(f"input[name=label][value={label_of_key(held(), '1')}]")).to_be_checked()
    assert not Annotation.objects.exists() and page.documents == []
    context.close()


def test_a_server_error_keeps_the_answer_and_says_so(live_server, browser):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    page = open_page(browser, live_server, project)
    page.route("**/submit/", lambda route: route.fulfill(status=500, body="<h1>Server Error</h1>"))
    answer_with_keys(page, "2", REASONS[1])
    expect(page.get_by_role("alert")).to_contain_text("could not take this (status 500)")
    expect(page.locator("textarea")).to_have_value(REASONS[1])
    page.unroute("**/submit/")
    page.keyboard.press("Control+Enter")  # sent again, it goes through
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    assert Annotation.objects.get().reason == REASONS[1]
    page.close()
