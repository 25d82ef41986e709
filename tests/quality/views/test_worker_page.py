"""The worker page: what it shows (answers, gold with its interval, agreement with the others'
majority, competence from the last agreement run, signals, shared reasons, flags, decisions,
training, bonuses), who may open it, and each of its actions with its audit entry."""

from decimal import Decimal
from html import escape

import pytest
from django.urls import reverse
from django.utils import timezone

from analysis.methods.intervals import wilson
from analysis.models import AnalysisRun
from annotation.models import Annotation, Assignment, AuditEntry, ItemKind, Purpose, Standing
from quality.models import (
    CheckResult,
    ItemFlag,
    QualityRule,
    RuleDecision,
    TrainingRound,
    WorkerStanding,
)
from quality.selectors.worker_page import worker_crowd_figures, worker_page
from recruiting.models import Bonus
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item

pytestmark = pytest.mark.django_db
S = Assignment.Status


def answered(item, worker, label="a1", reason=None, status=S.SUBMITTED, signals=None, purpose=Purpose.TASK):
    now = timezone.now()
    reason = reason or f"A reason of {worker.username} about item {item.pk}, unlike any other."
    a = AssignmentFactory(item=item, worker=worker, status=status, assigned_at=now - timezone.timedelta(minutes=2),
                          submitted_at=now, purpose=purpose)
    Annotation.objects.create(assignment=a, answer={"label": label, "standpoint": "none"}, reason=reason,
                              seconds=12.5, client={"signals": signals} if signals else {})
    return a


@pytest.fixture
def setup():
    """Four items; ``me`` answers all, two others answer each with a1 (items 0–2: majority a1,
    item 3: a tie)."""
    project = ProjectFactory(redundancy=5)
    items = ItemFactory.create_batch(4, project=project)
    me, x, y = UserFactory(username="me"), UserFactory(username="x"), UserFactory(username="y")
    mine = [answered(items[0], me, "a1", reason="Copied reason shared word for word",
                     signals={"pasted": 40, "hidden_ms": 2500, "blurs": 2, "webdriver": False}),
            answered(items[1], me, "a1", signals={"pasted": 0, "hidden_ms": 0, "blurs": 0, "webdriver": True}),
            answered(items[2], me, "a2"),
            answered(items[3], me, "a2")]
    for item in items[:3]:
        answered(item, x, "a1")
        answered(item, y, "a1")
    answered(items[0], x.__class__.objects.create(username="z"), "equal", reason="Copied reason shared word for word")
    answered(items[3], x, "a1")
    answered(items[3], y, "a2")
    return project, me, mine


@pytest.fixture
def staff(client):
    client.force_login(UserFactory(role="admin"))
    return client


def test_the_figures(setup):
    project, me, mine = setup
    WorkerStanding.objects.create(project=project, worker=me, gold_answered=3, gold_right=2)
    page = worker_page(project=project, worker=me)
    crowd = worker_crowd_figures(project=project, worker=me)
    assert (page.gold.n, page.gold.hits) == (3, 2)
    assert page.gold.interval == wilson(2, 3)
    # items 0 and 1 agree with the others' a1; item 2 does not; item 0's others: a1, a1, equal.
    assert (crowd.agreement.n, crowd.agreement.hits) == (3, 2)
    assert page.signals.pasted_answers == 1 and page.signals.pasted_characters == 40
    assert page.signals.automated_answers == 1 and page.signals.hidden_ms == 2500 and page.signals.blurs == 2
    assert page.signals.answers == 2
    assert [(r.reason, r.other_workers) for r in crowd.shared_reasons] == [("Copied reason shared word for word", 1)]
    assert crowd.reason_review_url == reverse("gold-page", args=[project.slug]) + "#reasons"  # a pairwise project
    assert page.answers.paginator.count == 4
    assert [r.assignment_id for r in page.answer_rows] == [a.pk for a in reversed(mine)]
    assert page.answer_rows[-1].signals["pasted"] == 40 and page.answer_rows[-1].seconds == 12.5
    assert page.competence is None


def test_competence_comes_from_the_last_finished_agreement_run(setup):
    project, me, _ = setup
    AnalysisRun.objects.create(project=project, kind="agreement", status="done",
                               result={"workers": [{"worker": "me", "competence": 0.2}]})
    last = AnalysisRun.objects.create(project=project, kind="agreement", status="done", result={"workers": [
        {"worker": "x", "competence": 0.9}, {"worker": "me", "competence": 0.71, "competence_low": 0.6,
                                             "competence_high": 0.8}]})
    AnalysisRun.objects.create(project=project, kind="agreement", status="failed", result=None)
    found = worker_page(project=project, worker=me).competence
    assert (found.run_id, found.value, found.low, found.high) == (last.pk, 0.71, 0.6, 0.8)


def test_the_page_as_staff_shows_everything(setup, staff):
    project, me, mine = setup
    CheckResult.objects.create(assignment=mine[3], project=project, worker=me, purpose=Purpose.GOLD, score=0.0,
                               right=False, method="exact", expected={"label": "a1"}, scored_at=timezone.now())
    ItemFlag.objects.create(assignment=AssignmentFactory(item=ItemFactory(project=project), worker=me,
                                                         status=S.RETURNED),
                            project=project, item=mine[0].item, worker=me, problem="text", reason="garbled words",
                            created_at=timezone.now())
    rule = QualityRule.objects.create(project=project, kind="gold_accuracy", action="review", threshold=0.7)
    RuleDecision.objects.create(project=project, worker=me, rule=rule, kind=rule.kind, action=rule.action,
                                evidence={"right": 2, "answered": 9, "accuracy": 2 / 9, "low": 0.0632, "high": 0.5474,
                                          "confidence": 0.95, "threshold": 0.7},
                                trigger="gold answer", decided_at=timezone.now())
    TrainingRound.objects.create(project=project, worker=me, kind="qualification", number=1, items=5, pass_mark=0.8,
                                 answered=5, right=4, passed=True, started_at=timezone.now())
    Bonus.objects.create(project=project, worker=me, amount=Decimal("1.50"), currency="USD", reason="careful work")
    AnalysisRun.objects.create(project=project, kind="agreement", status="done",
                               result={"workers": [{"worker": "me", "competence": 0.5}]})
    url = reverse("quality-worker", args=[project.slug, me.pk])
    response = staff.get(url)
    body = response.content.decode()
    assert response.status_code == 200
    # The comparison with the others comes in a second request (htmx), or with the page from its link.
    assert f'hx-get="{url}?part=crowd"' in body and "also by 1 other worker" not in body
    part = staff.get(url + "?part=crowd", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in part and "also by 1 other worker" in part and "67%" in part
    body = staff.get(url + "?part=crowd").content.decode()
    for text in ("Copied reason shared word for word", "garbled words", "Qualification #1",
                 "careful work", "0.50", "—", "automated", "also by 1 other worker",
                 # The decision in the rules page's words, never its raw figures.
                 "2 of 9 gold answers right (22%, 95% interval 6–55%), below the bar of 70%: sent to review",
                 # The gold answer in words: what was given, what was expected, and the verdict.
                 "a2: the item&#x27;s arg2 is more convincing", "a1: the item&#x27;s arg1 is more convincing",
                 "<strong>wrong</strong>"):
        assert text in body, text
    for raw in ("0.5474", escape('{"label": "a1"}'), "accuracy 0.2"):
        assert raw not in body, raw
    # The competence has no interval in this run: a dash, never a made-up one.
    assert "interval —" in body


def test_the_overview_links_each_worker(setup, staff):
    project, me, _ = setup
    body = staff.get(reverse("overview", args=[project.slug])).content.decode()
    assert reverse("quality-worker", args=[project.slug, me.pk]) in body


def test_nobody_else_sees_the_page_and_other_projects_workers_are_404(setup, client):
    project, me, _ = setup
    url = reverse("quality-worker", args=[project.slug, me.pk])
    assert client.get(url).status_code == 302  # to log in
    client.force_login(me)
    assert client.get(url).status_code == 403
    client.force_login(UserFactory(role="admin"))
    stranger = UserFactory()
    AssignmentFactory(item=ItemFactory(), worker=stranger)  # works in another project only
    assert client.get(reverse("quality-worker", args=[project.slug, stranger.pk])).status_code == 404
    assert client.get(reverse("quality-worker", args=[project.slug, 999999])).status_code == 404
    assert client.get(reverse("quality-worker", args=["no-such-project", me.pk])).status_code == 404
    # An action on another project's worker changes nothing.
    response = client.post(reverse("quality-worker-action", args=[project.slug, stranger.pk, "block"]))
    assert response.status_code == 404
    assert not WorkerStanding.objects.filter(worker=stranger).exists() and not AuditEntry.objects.exists()


def test_block_and_unblock_in_the_project(setup, staff):
    project, me, _ = setup
    open_one = AssignmentFactory(item=ItemFactory(project=project), worker=me, status=S.ASSIGNED)
    url = reverse("quality-worker-action", args=[project.slug, me.pk, "block"])
    assert staff.post(url, {"note": "pasted every reason"}).status_code == 302
    standing = WorkerStanding.objects.get(project=project, worker=me)
    assert standing.state == Standing.BLOCKED and standing.reason == "pasted every reason"
    open_one.refresh_from_db()
    assert open_one.status == S.RETURNED
    staff.post(reverse("quality-worker-action", args=[project.slug, me.pk, "unblock"]))
    assert WorkerStanding.objects.get(project=project, worker=me).state == Standing.ACTIVE
    assert list(AuditEntry.objects.filter(project=project).order_by("pk").values_list("action", flat=True)) == [
        "standing:blocked", "answers_excluded", "standing:active", "answers_restored"]


def test_approve_and_reject_need_a_note_and_keep_it(setup, staff):
    project, me, mine = setup
    approve = reverse("quality-worker-action", args=[project.slug, me.pk, "approve"])
    response = staff.post(approve, {"note": "  "}, follow=True)
    assert "the note is kept" in response.content.decode()
    assert not Assignment.objects.filter(worker=me, status=S.APPROVED).exists() and not AuditEntry.objects.exists()
    staff.post(approve, {"note": "checked by hand"})
    assert set(Assignment.objects.filter(worker=me, project=project).values_list("status", "review_note")) == {
        (S.APPROVED, "checked by hand")}
    staff.post(reverse("quality-worker-action", args=[project.slug, me.pk, "reject"]), {"note": "copied reasons"})
    assert set(Assignment.objects.filter(worker=me, project=project).values_list("status", "review_note")) == {
        (S.REJECTED, "copied reasons")}
    entries = list(AuditEntry.objects.filter(project=project).order_by("pk"))
    assert [(e.action, e.details["assignments"], e.details["note"]) for e in entries] == [
        ("approve", 4, "checked by hand"), ("reject", 4, "copied reasons")]
    assert all(e.actor.profile.role == "admin" for e in entries)


def test_grant_a_bonus_with_checks(setup, staff):
    project, me, _ = setup
    url = reverse("quality-worker-action", args=[project.slug, me.pk, "bonus"])
    for bad, word in (({"amount": "-1", "reason": "x"}, "positive"), ({"amount": "1", "reason": ""}, "reason"),
                      ({"amount": "1", "reason": "x", "currency": "dollars"}, "three-letter")):
        assert word in staff.post(url, bad, follow=True).content.decode()
    assert not Bonus.objects.exists()
    staff.post(url, {"amount": "2.5", "currency": "gbp", "reason": "careful reasons"})
    bonus = Bonus.objects.get()
    assert (bonus.amount, bonus.currency, bonus.worker) == (Decimal("2.50"), "GBP", me)
    entry = AuditEntry.objects.get(action="bonus")
    assert entry.details["amount"] == "2.50" and entry.project == project


def test_send_to_training_opens_a_round_or_says_why_not(setup, staff):
    project, me, _ = setup
    url = reverse("quality-worker-action", args=[project.slug, me.pk, "training"])
    assert b'data-testid="training"' in staff.get(reverse("quality-worker", args=[project.slug, me.pk])).content
    # No training item in the project: nothing is opened and the page says why.
    body = staff.post(url, {"note": "again"}, follow=True).content.decode()
    assert "No training item is left" in body and not TrainingRound.objects.filter(worker=me).exists()
    check_item(project, kind=ItemKind.TRAINING)
    body = staff.post(url, {"note": "again"}, follow=True).content.decode()
    assert "was sent to a training round" in body
    sent = TrainingRound.objects.get(project=project, worker=me)
    assert (sent.kind, sent.note, sent.finished_at) == ("recalibration", "again", None)
    entry = AuditEntry.objects.get(project=project, action="send_to_training")
    assert entry.details["workers"] == [me.username]
    # A second round while one is open is refused, naming why.
    assert "already open" in staff.post(url, {"note": "again"}, follow=True).content.decode()


def test_a_researcher_sees_the_page_but_may_not_act(setup, client):
    project, me, _ = setup
    client.force_login(UserFactory(role="researcher"))
    page = client.get(reverse("quality-worker", args=[project.slug, me.pk]))
    assert page.status_code == 200 and b'data-testid="block"' not in page.content
    response = client.post(reverse("quality-worker-action", args=[project.slug, me.pk, "block"]), follow=True)
    assert "permission" in response.content.decode()
    assert not WorkerStanding.objects.filter(worker=me, state=Standing.BLOCKED).exists()


def test_an_unknown_action_is_404(setup, staff):
    project, me, _ = setup
    assert staff.post(reverse("quality-worker-action", args=[project.slug, me.pk, "delete"])).status_code == 404


def test_unblocking_leads_back_to_the_qualification_a_worker_has_not_passed(setup, staff):
    from tests.quality_factories import quality_policy

    project, me, _ = setup
    quality_policy(project, qualification_items=2)
    url = reverse("quality-worker-action", args=[project.slug, me.pk, "unblock"])
    # Neither blocked nor to review: nothing to undo, and the page says so.
    assert "neither blocked nor to review" in staff.post(url, follow=True).content.decode()
    WorkerStanding.objects.update_or_create(project=project, worker=me, defaults={"state": Standing.BLOCKED})
    body = staff.post(url, follow=True).content.decode()
    assert "is qualifying in this project" in body
    assert WorkerStanding.objects.get(project=project, worker=me).state == Standing.QUALIFYING


def drawn(assignment, *sides):
    assignment.shown_order = {"sides": list(sides)}
    assignment.save(update_fields=["shown_order"])
    return assignment


def test_answers_read_as_the_worker_saw_them_and_as_stored(setup, staff):
    """A left-clicker shown the item's arg2 on the left stored a2: the page says they chose
    "A1 is more convincing", and that the record holds a2."""
    project, me, mine = setup
    drawn(mine[2], "a2", "a1")  # a2, with arg2 on the left: the left-hand button
    drawn(mine[3], "a1", "a2")  # a2, in import order: the right-hand button
    rows = {r.assignment_id: r for r in worker_page(project=project, worker=me).answer_rows}
    assert rows[mine[2].pk].seen == "A1 is more convincing (A1 was the item's arg2)"
    assert rows[mine[2].pk].stored == "a2: the item's arg2 is more convincing"
    assert rows[mine[3].pk].seen.startswith("A1 is less convincing")
    assert rows[mine[0].pk].seen is None  # no stored order: nothing is claimed about what was seen
    body = staff.get(reverse("quality-worker", args=[project.slug, me.pk])).content.decode()
    assert "A1 is more convincing (A1 was the item&#x27;s arg2)" in body
    assert "As they saw it" in body and "As stored" in body


def test_the_first_shown_share_counts_drawn_answers_that_chose_a_place(setup, staff):
    project, me, mine = setup
    # Three answers chose the argument on the left, one chose the right; a tie picks no place.
    drawn(mine[0], "a1", "a2")  # a1 on the left: chose it
    drawn(mine[1], "a2", "a1")  # a1 on the right
    drawn(mine[2], "a2", "a1")  # a2 on the left: chose it
    tie = answered(ItemFactory(project=project), me, "equal")
    drawn(tie, "a2", "a1")
    share = worker_page(project=project, worker=me).first_shown
    # mine[3] has no stored order (import order): it is not counted.
    assert (share.n, share.hits, share.expected) == (3, 2, 0.5)
    assert share.interval == wilson(2, 3)
    assert share.words == ("Chose the argument shown on the left (A1) in 2 of 3 answers (67%, 95% interval 21–94%); "
                           "with no position bias the drawn orders predict 50%: the interval includes it.")
    body = staff.get(reverse("quality-worker", args=[project.slug, me.pk])).content.decode()
    figure = reverse("quality-worker-first-shown", args=[project.slug, me.pk])
    assert f'src="{figure}"' in body and "the drawn orders predict 50%" in body
    response = staff.get(figure)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert "style-src 'unsafe-inline'" in response["Content-Security-Policy"]
    assert response.content.startswith(b"<?xml") and b"<svg" in response.content
    assert b"chose it: 2 of 3" in response.content


def test_an_always_left_worker_lies_above_the_half_the_orders_predict(setup):
    project, me, _ = setup
    for n in range(30):
        sides = ("a1", "a2") if n % 2 else ("a2", "a1")
        drawn(answered(ItemFactory(project=project), me, sides[0]), *sides)
    share = worker_page(project=project, worker=me).first_shown
    assert (share.n, share.hits, share.expected) == (30, 30, 0.5)
    assert share.words.endswith("the interval lies above it.")


def test_under_import_order_the_page_says_it_cannot_judge(setup, staff):
    project, me, mine = setup
    project.keep_import_order = True
    project.save(update_fields=["keep_import_order"])
    drawn(mine[0], "a1", "a2")
    share = worker_page(project=project, worker=me).first_shown
    assert share.n == 0 and "import order" in share.words
    body = staff.get(reverse("quality-worker", args=[project.slug, me.pk])).content.decode()
    assert "import order" in body and reverse("quality-worker-first-shown", args=[project.slug, me.pk]) not in body
    assert staff.get(reverse("quality-worker-first-shown", args=[project.slug, me.pk])).status_code == 200


def test_a_type_without_a_drawn_order_has_no_position_figure(staff):
    project = ProjectFactory(task_type="response_scoring")
    me = UserFactory()
    AssignmentFactory(item=ItemFactory(project=project), worker=me)
    assert worker_page(project=project, worker=me).first_shown is None
    body = staff.get(reverse("quality-worker", args=[project.slug, me.pk])).content.decode()
    assert 'data-testid="position"' not in body
    assert staff.get(reverse("quality-worker-first-shown", args=[project.slug, me.pk])).status_code == 404


def test_gold_and_training_rounds_read_as_words_grouped_by_round(setup, staff):
    project, me, mine = setup
    now = timezone.now()
    first = TrainingRound.objects.create(project=project, worker=me, kind="qualification", number=1, items=2,
                                         pass_mark=0.5, answered=2, right=1, passed=True, started_at=now)
    a, b = (answered(ItemFactory(project=project), me, label, purpose=Purpose.TRAINING) for label in ("a2", "equal"))
    drawn(a, "a2", "a1")
    for assignment, right in ((a, True), (b, False)):
        CheckResult.objects.create(assignment=assignment, project=project, worker=me, purpose=Purpose.TRAINING,
                                   round=first, score=float(right), right=right, method="exact",
                                   expected={"label": "a2"}, scored_at=now)
    CheckResult.objects.create(assignment=mine[3], project=project, worker=me, purpose=Purpose.GOLD, score=0.0,
                               right=False, method="exact", expected={"label": "a1"}, scored_at=now)
    groups = worker_page(project=project, worker=me).check_groups
    assert [(g.title, len(g.rows)) for g in groups] == [("Qualification #1", 2), ("Gold questions", 1)]
    row = next(r for r in groups[0].rows if r.assignment_id == a.pk)
    # The worker clicked the left-hand argument, which was the item's arg2, the expected one.
    assert (row.given_seen, row.expected_seen) == ("A1 is more convincing (A1 was the item's arg2)",) * 2
    assert row.given_stored == row.expected_stored == "a2: the item's arg2 is more convincing"
    body = staff.get(reverse("quality-worker", args=[project.slug, me.pk])).content.decode()
    assert "1 of 2 right (2 items, pass mark 50%): passed" in body
    assert body.count("<strong>right</strong>") == 1 and body.count("<strong>wrong</strong>") == 2
    assert "equal: the item&#x27;s arguments are equally convincing" in body
    assert escape('{"label"') not in body


def test_the_api_gives_the_same_words(setup, staff):
    project, me, mine = setup
    drawn(mine[2], "a2", "a1")
    rule = QualityRule.objects.create(project=project, kind="automation", action="block", threshold=1)
    RuleDecision.objects.create(project=project, worker=me, rule=rule, kind=rule.kind, action=rule.action,
                                evidence={"automated": 3, "answers": 40, "min_answers": 2}, trigger="analysis run",
                                decided_at=timezone.now())
    data = staff.get(f"/api/projects/{project.slug}/workers/{me.pk}/").json()
    row = next(r for r in data["answers"]["rows"] if r["assignment"] == mine[2].pk)
    assert (row["as_seen"], row["as_stored"]) == ("A1 is more convincing (A1 was the item's arg2)",
                                                  "a2: the item's arg2 is more convincing")
    assert data["rule_decisions"][0]["words"] == (
        "3 of 40 answers sent from an automated browser (navigator.webdriver), at least the 2 the rule allows: blocked")
    assert data["first_shown"]["answers"] == 1 and data["first_shown"]["expected"] == 0.5
