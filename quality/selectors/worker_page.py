"""Reads behind the worker page: one worker's answers in one project (paged), gold accuracy with
its interval, agreement with the other workers, MACE competence from the last agreement run,
authenticity signals, how often they chose the option shown first, reasons other workers gave
word for word, item flags, rule decisions in the rules page's words, gold answers and training
rounds with each answer in words. What the apps above add (bonuses, a panel's submission)
they show themselves (``annotation.page_sections``).

An answer is shown twice where the options were shown in a drawn order: as its worker saw it
(the place they chose on their page, ``TaskType.answer_as_seen``) and as stored (options named
by their import ids, ``TaskType.answer_as_stored``): a pairwise ``a2`` is the button "A1 is more
convincing" for a worker who was shown the item's arg2 on the left.

Every figure reads the rows of this worker, or of the items this worker answered, never the
whole project: the page stays fast on a project of 84,445 answers (docs/quality/worker-page.md).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, Max, Min, OuterRef
from django.db.models.fields.json import KeyTransform
from django.urls import NoReverseMatch, reverse

from annotation.models import Annotation, Assignment, Project, Purpose
from annotation.task_types import get_task_type
from annotation.task_types.base import TaskType
from annotation.worker_figures import (
    Competence,
    FirstShown,
    competence_sources,
    decision_words,
    interval_of,
)
from quality.models import CheckResult, ItemFlag, RuleDecision, TrainingRound, WorkerStanding
from quality.selectors.first_shown import worker_first_shown

ANSWERS_PER_PAGE = 50
# Rows shown of the lists that may grow long (the counts above them say how many there are).
LIST_LIMIT = 100


@dataclass(frozen=True)
class AnswerRow:
    assignment_id: int
    item_id: int
    external_id: str
    purpose: str
    status: str
    seconds: float | None
    label: str
    reason: str
    submitted_at: datetime | None
    signals: dict[str, Any]
    review_note: str
    seen: str | None = None  # as the worker saw it; None: shown in import order
    stored: str = ""  # as stored, options named by their import ids


@dataclass(frozen=True)
class Rate:
    """A share with its 95% Wilson interval (None without observations)."""

    n: int
    hits: int

    @property
    def share(self) -> float | None:
        return self.hits / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return interval_of(hits=self.hits, n=self.n) if self.n else None

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval or (None, None)
        return {"n": self.n, "hits": self.hits, "share": self.share, "low": low, "high": high}


@dataclass(frozen=True)
class CheckRow:
    assignment_id: int
    external_id: str
    purpose: str
    expected: Any
    given: Any
    score: float
    right: bool
    method: str
    scored_at: datetime
    round_id: int | None = None
    given_seen: str | None = None
    given_stored: str = ""
    expected_seen: str | None = None
    expected_stored: str = ""

    @property
    def expected_text(self) -> str:
        return json.dumps(self.expected, ensure_ascii=False, sort_keys=True)

    @property
    def given_text(self) -> str:
        return "—" if self.given is None else json.dumps(self.given, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class CheckGroup:
    """Gold answers, or one training round, with its scored answers (newest first)."""

    title: str
    rows: list[CheckRow]
    training: TrainingRound | None = None


@dataclass(frozen=True)
class DecisionRow:
    decision: RuleDecision
    words: str | None  # the rules page's sentence; None when analysis is not installed


@dataclass(frozen=True)
class SignalTotals:
    answers: int = 0  # answers that carried signals
    pasted_answers: int = 0
    pasted_characters: int = 0
    hidden_answers: int = 0
    hidden_ms: int = 0
    blurs: int = 0
    automated_answers: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SharedReason:
    reason: str
    other_workers: int


@dataclass(frozen=True)
class CrowdFigures:
    """What compares the worker with the other workers: agreement with their majority and the
    reasons they also gave. These read the answers of the worker's items and the reasons of the
    whole project, so the page loads them in a second request (``worker_crowd_figures``)."""

    agreement: Rate
    shared_reasons: list[SharedReason]
    reason_review_url: str | None


@dataclass(frozen=True)
class WorkerPage:
    project: Project
    worker: User
    blocked_everywhere: bool
    standing: WorkerStanding | None
    answers: Page
    answer_rows: list[AnswerRow]
    gold: Rate
    checks: list[CheckRow]
    competence: Competence | None
    signals: SignalTotals
    flags: list[ItemFlag]
    decisions: list[RuleDecision]
    training: list[TrainingRound]
    counts: dict[str, int] = field(default_factory=dict)
    first_shown: FirstShown | None = None  # None: the type shows no options in a drawn order
    check_groups: list[CheckGroup] = field(default_factory=list)
    decision_rows: list[DecisionRow] = field(default_factory=list)


def project_worker(*, project: Project, worker_id: int) -> User | None:
    """The worker, if they ever held an assignment in the project or have a standing there;
    None for anyone else (another project's worker, an unknown id)."""
    return (get_user_model().objects.select_related("profile")
            .filter(pk=worker_id)
            .filter(Exists(Assignment.objects.filter(project=project, worker_id=OuterRef("pk")))
                    | Exists(WorkerStanding.objects.filter(project=project, worker_id=OuterRef("pk"))))
            .first())


def _answers(*, project: Project, worker: User, page: int | str | None) -> tuple[Page, list[AnswerRow]]:
    """A page of the worker's answers, newest first: paged over their assignments' (project,
    worker, status, submitted_at) index, and only the page's answers read."""
    task = get_task_type(project.task_type)
    answered = (Assignment.objects.filter(project=project, worker=worker, submitted_at__isnull=False)
                .order_by("-submitted_at", "-pk").values_list("pk", flat=True))
    current = Paginator(answered, ANSWERS_PER_PAGE).get_page(page)
    ids = list(current.object_list)
    found = {row[0]: row for row in Annotation.objects.filter(assignment_id__in=ids).values_list(
        "assignment_id", "assignment__item_id", "assignment__item__external_id", "assignment__purpose",
        "assignment__status", "seconds", "answer", "reason", "assignment__submitted_at", "client",
        "assignment__review_note", "assignment__shown_order")}
    shown = [AnswerRow(assignment_id=a, item_id=i, external_id=x, purpose=p, status=s, seconds=sec,
                       label=task.label_display(answer), reason=reason, submitted_at=at,
                       signals=dict((client or {}).get("signals") or {}), review_note=note,
                       seen=_seen(task, answer, order), stored=task.answer_as_stored(answer))
             for a, i, x, p, s, sec, answer, reason, at, client, note, order in (found[pk] for pk in ids if pk in found)]
    return current, shown


def _seen(task: TaskType, answer: Any, order: Any) -> str | None:
    # An answer or order that is not a mapping (a hand-edited row) has no words as seen.
    if not isinstance(answer, dict) or not isinstance(order, dict):
        return None
    return task.answer_as_seen(answer, order=order)


def _signals(*, project: Project, worker: User) -> SignalTotals:
    """Totals of the signals the worker's answers carried (their JSON read in the database, for
    this worker only)."""
    values = (Annotation.objects.filter(assignment__project=project, assignment__worker=worker).order_by()
              .annotate(signals=KeyTransform("signals", "client")).values_list("signals", flat=True))
    totals: Counter[str] = Counter()
    for signals in values:
        if not isinstance(signals, dict):
            continue
        totals["answers"] += 1
        pasted, hidden = int(signals.get("pasted") or 0), int(signals.get("hidden_ms") or 0)
        totals["pasted_answers"] += pasted > 0
        totals["pasted_characters"] += pasted
        totals["hidden_answers"] += hidden > 0
        totals["hidden_ms"] += hidden
        totals["blurs"] += int(signals.get("blurs") or 0)
        totals["automated_answers"] += signals.get("webdriver") is True
    return SignalTotals(**totals)


def _agreement(*, project: Project, worker: User) -> Rate:
    """Of the worker's counted task answers on items that others answered too with a clear
    majority, how many give the majority label of the other workers (ties have no majority and
    are left out). Reads the assignments of the worker's items only, by their item index (status
    and purpose are checked here: filtering on them in the query would let SQLite read every
    counted assignment of the site instead); a task type whose answer keeps its label under a
    fixed key has it read by the database, any other labels its answers itself."""
    task = get_task_type(project.task_type)
    items = Assignment.objects.filter(project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES,
                                      purpose=Purpose.TASK).values("item_id")
    rows = Assignment.objects.filter(item_id__in=items).order_by()
    key = f"annotation__answer__{task.answer_columns[0]}" if task.answer_columns else "annotation__answer"
    counted = set(Assignment.COUNTED_STATUSES)
    mine: dict[int, Any] = {}
    others: dict[int, Counter[Any]] = defaultdict(Counter)
    for item_id, worker_id, status, purpose, answered, value in rows.values_list(
            "item_id", "worker_id", "status", "purpose", "annotation__id", key):
        if answered is None or status not in counted or purpose != Purpose.TASK:
            continue
        label = value if task.answer_columns else task.label_display(value)
        label = json.dumps(label, sort_keys=True) if isinstance(label, dict | list) else label
        if worker_id == worker.pk:
            mine[item_id] = label
        else:
            others[item_id][label] += 1
    n = hits = 0
    for item_id, label in mine.items():
        top = others.get(item_id, Counter()).most_common(2)
        if not top or (len(top) == 2 and top[0][1] == top[1][1]):
            continue
        n += 1
        hits += top[0][0] == label
    return Rate(n=n, hits=hits)


def _checks(*, project: Project, worker: User) -> list[CheckRow]:
    task = get_task_type(project.task_type)
    results = (CheckResult.objects.filter(project=project, worker=worker)
               .select_related("assignment__item", "assignment__annotation").order_by("-scored_at", "-pk")[:LIST_LIMIT])
    rows = []
    for r in results:
        annotation = getattr(r.assignment, "annotation", None)
        given = ({**annotation.answer, **({"reason": annotation.reason} if annotation.reason else {})}
                 if annotation is not None else None)
        order = r.assignment.shown_order
        expected = r.expected if isinstance(r.expected, dict) else {}
        rows.append(CheckRow(assignment_id=r.assignment_id, external_id=r.assignment.item.external_id,
                             purpose=r.purpose, expected=r.expected, given=given, score=r.score, right=r.right,
                             method=r.method, scored_at=r.scored_at, round_id=r.round_id,
                             given_seen=_seen(task, annotation.answer, order) if annotation is not None else None,
                             given_stored=task.answer_as_stored(annotation.answer) if annotation is not None else "",
                             expected_seen=_seen(task, expected, order), expected_stored=task.answer_as_stored(expected)))
    return rows


def _check_groups(checks: list[CheckRow], training: list[TrainingRound]) -> list[CheckGroup]:
    """The scored answers by where they came from: each training round (newest first) with its
    result, then the gold questions; a training answer whose round is gone stands apart."""
    by_round: dict[int | None, list[CheckRow]] = defaultdict(list)
    gold, loose = [], []
    for row in checks:
        if row.purpose == Purpose.GOLD:
            gold.append(row)
        elif row.round_id is not None:
            by_round[row.round_id].append(row)
        else:
            loose.append(row)
    groups = [CheckGroup(title=f"{t.get_kind_display()} #{t.number}", rows=by_round.get(t.pk, []), training=t)
              for t in sorted(training, key=lambda t: -t.number)]
    if loose:
        groups.append(CheckGroup(title="Training answers of a round no longer kept", rows=loose))
    if gold:
        groups.append(CheckGroup(title="Gold questions", rows=gold))
    return groups


def _shared_reasons(*, project: Project, worker: User) -> list[SharedReason]:
    """The worker's reasons that other workers in the project gave word for word, most shared
    first: the answers in the range of the project's assignment ids, matched against the
    worker's reasons by the database (a subquery, not a list: thousands of values cost more to
    send than to match)."""
    bounds = Assignment.objects.filter(project=project).aggregate(low=Min("pk"), high=Max("pk"))
    if bounds["low"] is None:
        return []
    mine = (Annotation.objects.filter(assignment__project=project, assignment__worker=worker)
            .exclude(reason="").values("reason"))
    matches = (Annotation.objects.filter(reason__in=mine, assignment__gte=bounds["low"],
                                         assignment__lte=bounds["high"]).order_by()
               .values_list("reason", "assignment__worker_id", "assignment__project_id"))
    workers: dict[str, set[int]] = defaultdict(set)
    for reason, worker_id, project_id in matches:
        if project_id == project.pk and worker_id != worker.pk:
            workers[reason].add(worker_id)
    shared = sorted(((reason, len(ids)) for reason, ids in workers.items()), key=lambda r: (-r[1], r[0]))
    return [SharedReason(reason=reason, other_workers=n) for reason, n in shared[:LIST_LIMIT]]


def reason_review_url(*, project: Project) -> str | None:
    """The page of the project's task type that reviews reasons across workers, if it has one."""
    task = get_task_type(project.task_type)
    if task.reason_review is None:
        return None
    name, anchor = task.reason_review
    try:
        return f"{reverse(name, kwargs={'slug': project.slug})}#{anchor}"
    except NoReverseMatch:
        return None


def worker_competence(*, project: Project, worker: User) -> Competence | None:
    for source in competence_sources():
        found = source(project, worker.get_username())
        if found is not None:
            return found
    return None


def worker_page(*, project: Project, worker: User, page: int | str | None = 1) -> WorkerPage:
    """Everything the worker page shows but the comparison with the other workers
    (``worker_crowd_figures``)."""
    standing = WorkerStanding.objects.filter(project=project, worker=worker).first()
    answers, rows = _answers(project=project, worker=worker, page=page)
    signals = _signals(project=project, worker=worker)
    counts = dict(Assignment.objects.filter(project=project, worker=worker)
                  .values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    profile = getattr(worker, "profile", None)
    checks = _checks(project=project, worker=worker)
    training = list(TrainingRound.objects.filter(project=project, worker=worker).order_by("number"))
    decisions = list(RuleDecision.objects.filter(project=project, worker=worker)[:LIST_LIMIT])
    return WorkerPage(
        project=project, worker=worker, blocked_everywhere=bool(profile and profile.blocked), standing=standing,
        answers=answers, answer_rows=rows,
        gold=Rate(n=standing.gold_answered, hits=standing.gold_right) if standing else Rate(0, 0),
        checks=checks,
        competence=worker_competence(project=project, worker=worker),
        signals=signals,
        flags=list(ItemFlag.objects.filter(project=project, worker=worker).select_related("item")[:LIST_LIMIT]),
        decisions=decisions,
        training=training,
        counts=counts,
        first_shown=worker_first_shown(project=project, worker=worker),
        check_groups=_check_groups(checks, training),
        decision_rows=[DecisionRow(decision=d, words=decision_words(d)) for d in decisions],
    )


def worker_crowd_figures(*, project: Project, worker: User) -> CrowdFigures:
    return CrowdFigures(agreement=_agreement(project=project, worker=worker),
                        shared_reasons=_shared_reasons(project=project, worker=worker),
                        reason_review_url=reason_review_url(project=project))
