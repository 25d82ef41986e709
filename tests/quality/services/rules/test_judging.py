"""The rules that read single answers judge each answer once its submit commits: too fast on
the server's time (a client's claim does not help), position bias against exactly 1/k where
orders are drawn (and not at all under import order), and the competence rule through the
agreement run requested every RUN_EVERY answers of a worker."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from analysis.models import AnalysisRun
from annotation.models import Annotation, Standing
from annotation.services import annotation_submit, assignment_next
from quality.models import RuleDecision, RuleState, WorkerStanding
from quality.services.rules.judging import RUN_EVERY
from quality.services.rules.states import rule_states_add, rule_states_add_orm
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality.rules.helpers import answered, rule
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db


def submit(project, worker, pick, *, seconds: float | None = None, client=None):
    """The worker's next item answered with ``pick(assignment)``, after ``seconds`` of server time."""
    a = assignment_next(project=project, worker=worker).assignment
    assert a is not None
    now = a.assigned_at + timedelta(seconds=seconds) if seconds is not None else None
    return annotation_submit(assignment=a, worker=worker, data=answer(pick(a)), client=client, now=now)


def standing(project, worker) -> str:
    return WorkerStanding.objects.get(project=project, worker=worker).state


def test_a_lying_speeder_is_blocked_by_too_fast_on_server_time(django_capture_on_commit_callbacks):
    project = ProjectFactory()
    for _ in range(30):
        ItemFactory(project=project)
    for _ in range(25):  # the project's answers take 30 s: a quarter of the median is 7.5 s
        answered(project, UserFactory(), seconds=30.0)
    too_fast = rule(project, "too_fast", threshold=0.1, share_of_median=0.25, min_answers=5, action="block")
    speeder = UserFactory(username="speeder")
    for n in range(5):
        with django_capture_on_commit_callbacks(execute=True):
            # 0.2 s on the server; the client claims 4.9 s more (5.1 s, within the old +5 s slack).
            result = submit(project, speeder, lambda a: "a1", seconds=0.2, client={"elapsed_ms": 5100})
        if n < 4:
            assert not RuleDecision.objects.exists()
    stored = Annotation.objects.get(pk=result.annotation.pk)
    assert stored.seconds == pytest.approx(0.2) and stored.client_seconds == pytest.approx(5.1)
    [decision] = RuleDecision.objects.all()
    assert decision.worker == speeder and decision.rule == too_fast and decision.trigger.startswith("answer")
    assert (decision.evidence["too_fast"], decision.evidence["answers"]) == (5, 5)
    assert decision.evidence["median"] == 30.0 and decision.evidence["cutoff"] == 7.5
    assert standing(project, speeder) == Standing.BLOCKED
    # The test starts again after a decision.
    assert RuleState.objects.get(rule=too_fast, worker=speeder).answers == 0


def test_an_honest_time_is_not_too_fast(django_capture_on_commit_callbacks):
    project = ProjectFactory()
    for _ in range(10):
        ItemFactory(project=project)
    for _ in range(25):
        answered(project, UserFactory(), seconds=30.0)
    too_fast = rule(project, "too_fast", threshold=0.1, min_answers=5, action="block")
    worker = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(8):
            submit(project, worker, lambda a: "a1", seconds=25.0, client={"elapsed_ms": 100})
    state = RuleState.objects.get(rule=too_fast, worker=worker)
    assert (state.answers, state.hits) == (8, 0) and not RuleDecision.objects.exists()


def test_position_bias_decides_on_the_answer_that_passes_the_bound_and_spares_an_unbiased_worker(
        django_capture_on_commit_callbacks):
    project = ProjectFactory(redundancy=2)
    items = [ItemFactory(project=project) for _ in range(40)]
    preferred = {item.pk: random.Random(item.pk).choice(["a1", "a2"]) for item in items}
    bias = rule(project, "position_bias", threshold=0.2, min_answers=5, action="review")
    honest, clicker = UserFactory(username="honest"), UserFactory(username="leftclicker")
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(40):
            submit(project, honest, lambda a: preferred[a.item_id])
    state = RuleState.objects.get(rule=bias, worker=honest)
    assert state.answers == 40 and not RuleDecision.objects.exists()
    # Always the argument shown on the left: 9 log(0.7 / 0.5) = 3.03 passes log 20 at the 9th.
    for n in range(1, 10):
        with django_capture_on_commit_callbacks(execute=True):
            submit(project, clicker, lambda a: a.shown_order["sides"][0])
        assert RuleDecision.objects.filter(worker=clicker).exists() == (n == 9)
    decision = RuleDecision.objects.get(worker=clicker)
    assert decision.rule == bias and (decision.evidence["chose_first"], decision.evidence["answers"]) == (9, 9)
    assert decision.evidence["expected"] == 0.5 and standing(project, clicker) == Standing.REVIEW


def test_under_import_order_position_bias_judges_nobody(django_capture_on_commit_callbacks):
    project = ProjectFactory(keep_import_order=True)
    for _ in range(15):
        ItemFactory(project=project)
    bias = rule(project, "position_bias", threshold=0.2, min_answers=5, action="block")
    clicker = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(15):
            submit(project, clicker, lambda a: "a1")
    assert not RuleState.objects.filter(rule=bias).exists() and not RuleDecision.objects.exists()


def test_a_rule_fault_after_commit_leaves_the_answer_stored(django_capture_on_commit_callbacks, monkeypatch):
    project = ProjectFactory()
    ItemFactory(project=project)
    rule(project, "automation", threshold=0, min_answers=1, action="block")
    from quality.services.rules import judging

    def broken(**_):
        raise RuntimeError("a rule broke")

    monkeypatch.setattr(judging, "answer_rules_judge", broken)
    worker = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        result = submit(project, worker, lambda a: "a1", client={"signals": {"webdriver": True}})
    assert Annotation.objects.filter(pk=result.annotation.pk).exists() and not RuleDecision.objects.exists()


def test_an_adversary_who_answers_gold_well_and_real_items_at_random_is_caught_by_competence(
        django_capture_on_commit_callbacks, monkeypatch):
    """Under the default sequential order: gold accuracy sees nothing wrong (every gold answer is
    right, at honest times); the agreement run requested after RUN_EVERY answers has the competence
    rule find the random real answers, and only the adversary's. (Position bias is left out: on a
    worker who picks sides by content it decides by chance, in at most 5% of studies by design, so
    with six workers it would now and then decide about someone; its error rates are the
    simulation's and its own tests'.)"""
    from quality.services import check_serving

    monkeypatch.setattr(check_serving, "draw", random.Random(11).random)
    project = ProjectFactory(redundancy=6, assignment_order="sequential")
    quality_policy(project, gold_rate=0.1)
    for _ in range(10):
        check_item(project, answer={"label": "a1"})
    items = [ItemFactory(project=project) for _ in range(40)]
    truth = {item.pk: ("a1", "a2")[n % 2] for n, item in enumerate(items)}
    competence = rule(project, "competence", threshold=0.5, min_answers=RUN_EVERY, action="review")
    gold = rule(project, "gold_accuracy", threshold=0.7, min_answers=5, action="block")
    careful = [UserFactory() for _ in range(5)]
    adversary = UserFactory(username="adversary")
    draw = random.Random(7)

    def pick(worker):
        def choose(a):
            if a.purpose == "gold":
                return "a1"
            return draw.choice(["a1", "a2"]) if worker is adversary else truth.get(a.item_id, "a1")
        return choose

    with django_capture_on_commit_callbacks(execute=True):
        for worker in careful:
            for _ in range(RUN_EVERY + 4):
                submit(project, worker, pick(worker), seconds=30.0)
    # The careful workers' RUN_EVERY-th answers requested a run: it found nobody.
    assert AnalysisRun.objects.filter(project=project, kind="agreement").exists()
    assert not RuleDecision.objects.exists()
    real = 0
    with django_capture_on_commit_callbacks(execute=True):
        while real < RUN_EVERY:
            result = submit(project, adversary, pick(adversary), seconds=30.0)
            real += result.assignment.purpose == "task"
    run = AnalysisRun.objects.filter(project=project, kind="agreement").latest("pk")
    assert run.status == AnalysisRun.Status.DONE
    [decision] = RuleDecision.objects.all()
    assert decision.worker == adversary and decision.rule == competence
    assert decision.evidence["high"] < 0.5 and decision.trigger == f"analysis run {run.pk} (agreement)"
    assert not RuleDecision.objects.filter(rule=gold).exists()


def test_judging_an_answer_by_all_four_per_answer_rules_costs_one_query(django_capture_on_commit_callbacks):
    """The rules and the median time come from the cache; the worker's four states are moved
    and read back in one statement (two on the worker's first answer, which makes them)."""
    project = ProjectFactory()
    for _ in range(5):
        ItemFactory(project=project)
    for _ in range(25):
        answered(project, UserFactory(), seconds=30.0)
    kinds = {"too_fast": rule(project, "too_fast", threshold=0.1, min_answers=50),
             "position_bias": rule(project, "position_bias", threshold=0.2, min_answers=50),
             "automation": rule(project, "automation", threshold=0, min_answers=50),
             "competence": rule(project, "competence", threshold=0.5, min_answers=50)}
    worker = UserFactory()
    costs = []
    for _ in range(3):
        with django_capture_on_commit_callbacks() as callbacks:
            submit(project, worker, lambda a: a.shown_order["sides"][0], seconds=1.0,
                   client={"signals": {"webdriver": True}})
        with CaptureQueriesContext(connection) as queries:
            for callback in callbacks:
                callback()
        costs.append(len(queries))
    # The first answer read the rules (one query) and counted the median (two) into the cache,
    # and made the states: an UPDATE that found none, then one INSERT of the four.
    assert costs == [5, 1, 1]
    states = {s.rule_id: (s.answers, s.hits) for s in RuleState.objects.filter(worker=worker)}
    assert states == {kinds["too_fast"].pk: (3, 3), kinds["position_bias"].pk: (3, 3),
                      kinds["automation"].pk: (3, 3), kinds["competence"].pk: (3, 0)}
    assert not RuleDecision.objects.exists()


def test_the_states_statements_move_and_return_what_the_orm_does():
    """The hand-written statements of ``rule_states_add`` against the same through the ORM:
    states made on a worker's first answer, added to after, each rule by its own increments."""
    project = ProjectFactory()
    rules = [rule(project, kind).pk for kind in ("too_fast", "position_bias", "automation", "competence")]
    by_sql, by_orm = UserFactory(), UserFactory()
    now = timezone.now()
    steps = [[(rules[0], 1, 0.0), (rules[3], 0, 0.0)],
             [(rules[0], 0, 0.0), (rules[1], 1, 0.3365), (rules[2], 1, 0.0), (rules[3], 0, 0.0)],
             [(rules[1], 0, -0.5108), (rules[3], 0, 0.0)],
             [(rules[2], 1, 0.0)]]
    for added in steps:
        sql = rule_states_add(worker_id=by_sql.pk, added=added, now=now)
        orm = rule_states_add_orm(worker_id=by_orm.pk, added=added, now=now)
        assert sorted(sql) == sorted(orm) and len(sql) == len(added)

    def stored(worker):
        return sorted(RuleState.objects.filter(worker=worker).values_list("rule_id", "answers", "hits", "llr"))

    assert stored(by_sql) == stored(by_orm) == [(rules[0], 2, 1, 0.0), (rules[1], 2, 1, 0.3365 - 0.5108),
                                                (rules[2], 2, 2, 0.0), (rules[3], 3, 0, 0.0)]
