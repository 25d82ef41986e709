"""The adjudication queue: a project's contested items, and what the adjudicator is shown of one.

An item is contested for any of three reasons, each shown with its figures:

Answers of workers blocked in the project are left out of all three while the project leaves
their answers out of the data (``annotation.selectors.counted``).

- ``split``: a real item with at least two counted answers whose most frequent answer (compared
  on the task type's gold fields, set answers as sets) holds no more than ``split_share`` of them
  (by default 0.5: no strict majority);
- ``low_posterior``: the project's last finished agreement run gave the item's MACE label a
  posterior below ``posterior_below`` (the run stores the posteriors under 0.9 only, so the bar
  is at most that);
- ``gold_disagreement``: a gold question answered at least ``GOLD_MIN_ANSWERS`` times, right in
  less than half of them: its gold answer may be wrong.

Adjudicated items leave the queue and are listed apart. The MACE posteriors are those the
project's last finished agreement run kept (``analysis.selectors.agreement_posteriors``).

The engine and the analysis app read the decided answers through ``annotation.quality_port``
(``adjudicated_answers`` for exports, ``preferred_decisions`` for gold data).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q

from analysis.selectors import MacePosteriors, agreement_posteriors
from annotation.models import Annotation, Assignment, Item, ItemKind, Project, Purpose
from annotation.selectors.counted import excluded_worker_ids
from annotation.task_types import get_task_type
from annotation.task_types.base import NONE, TaskType
from quality.models import Adjudication, CheckResult, QualityPolicy

REASONS = {
    "split": "Split votes",
    "low_posterior": "Low MACE posterior",
    "gold_disagreement": "Gold answer disputed",
}
SPLIT_SHARE = 0.5
POSTERIOR_BELOW = 0.6
GOLD_MIN_ANSWERS = 3
GOLD_RIGHT_BELOW = 0.5
PER_PAGE = 50
SUMMARY_LENGTH = 120


def mace_posteriors(*, project: Project) -> MacePosteriors | None:
    """The MACE posteriors of the project's last finished agreement run, or None."""
    return agreement_posteriors(project=project)


@dataclass(frozen=True)
class Contest:
    reason: str  # a key of REASONS
    text: str

    @property
    def label(self) -> str:
        return REASONS.get(self.reason, self.reason)


@dataclass
class QueueRow:
    item_id: int
    external_id: str
    kind: str
    summary: str
    contests: list[Contest] = field(default_factory=list)
    adjudication: Adjudication | None = None
    decided: str = ""  # the decided answer in words

    @property
    def reasons(self) -> list[str]:
        return [c.reason for c in self.contests]


def _answer_key(task: TaskType, answer: Mapping[str, Any]) -> tuple:
    """What two answers are compared on: the gold fields, a list as a set."""
    key = []
    for name in task.gold_fields:
        value = answer.get(name)
        key.append(frozenset(map(str, value)) if isinstance(value, list | tuple) else str(value))
    return tuple(key)


def _split_items(project: Project, task: TaskType, share: float, item: Item | None = None) -> dict[int, Contest]:
    votes: dict[int, Counter] = defaultdict(Counter)
    counted = Annotation.objects.filter(assignment__project=project, assignment__status__in=Assignment.COUNTED_STATUSES,
                                        assignment__purpose=Purpose.TASK, assignment__item__kind=ItemKind.REAL)
    counted = counted.exclude(assignment__worker_id__in=excluded_worker_ids(project=project))
    if item is not None:
        counted = counted.filter(assignment__item=item)
    for item_id, answer in counted.values_list("assignment__item_id", "answer").iterator(chunk_size=5000):
        votes[item_id][_answer_key(task, answer if isinstance(answer, dict) else {})] += 1
    out = {}
    for item_id, tally in votes.items():
        n, top = sum(tally.values()), max(tally.values())
        if n >= 2 and top / n <= share:
            spread = ", ".join(str(c) for _, c in tally.most_common())
            out[item_id] = Contest("split", f"split votes: the most frequent answer has {top} of {n} ({spread})")
    return out


def _posterior_items(project: Project, below: float,
                     item: Item | None = None) -> tuple[dict[int, Contest], MacePosteriors | None]:
    found = mace_posteriors(project=project)
    if found is None:
        return {}, None
    low = {external: p for external, p in found.items.items()
           if p < below and (item is None or external == item.external_id)}
    ids = dict(Item.objects.filter(project=project, external_id__in=list(low), kind=ItemKind.REAL)
               .values_list("external_id", "pk")) if low else {}
    return {ids[e]: Contest("low_posterior", f"MACE posterior {p:.2f} (agreement run #{found.run_id})")
            for e, p in low.items() if e in ids}, found


def _gold_items(project: Project, item: Item | None = None) -> dict[int, Contest]:
    scored = CheckResult.objects.filter(project=project, purpose=Purpose.GOLD, assignment__item__kind=ItemKind.GOLD)
    # A blocked worker's wrong answers dispute no gold answer while their answers are out of the data.
    scored = scored.exclude(worker_id__in=excluded_worker_ids(project=project))
    if item is not None:
        scored = scored.filter(assignment__item=item)
    rows = (scored.values("assignment__item_id").annotate(n=Count("pk"), right=Count("pk", filter=Q(right=True)))
            .filter(n__gte=GOLD_MIN_ANSWERS))
    return {r["assignment__item_id"]: Contest("gold_disagreement",
                                              f"gold answer disputed: right in {r['right']} of {r['n']} answers")
            for r in rows if r["right"] / r["n"] < GOLD_RIGHT_BELOW}


@dataclass(frozen=True)
class Queue:
    page: Page
    rows: list[QueueRow]
    counts: dict[str, int]  # contested items per reason (adjudicated ones left out)
    posteriors: MacePosteriors | None
    split_share: float
    posterior_below: float

    @property
    def reason_choices(self) -> list[tuple[str, str, int]]:
        """(reason, its name, contested items) for the filter."""
        return [(key, label, self.counts.get(key, 0)) for key, label in REASONS.items()]


def contested_items(*, project: Project, split_share: float = SPLIT_SHARE,
                    posterior_below: float = POSTERIOR_BELOW) -> tuple[dict[int, list[Contest]], MacePosteriors | None]:
    """Item pk -> why it is contested, for every contested item of the project."""
    task = get_task_type(project.task_type)
    contests: dict[int, list[Contest]] = defaultdict(list)
    low, posteriors = _posterior_items(project, posterior_below)
    for found in (_split_items(project, task, split_share), low, _gold_items(project)):
        for item_id, contest in found.items():
            contests[item_id].append(contest)
    return dict(contests), posteriors


def item_contests(*, project: Project, item: Item, split_share: float = SPLIT_SHARE,
                  posterior_below: float = POSTERIOR_BELOW) -> list[Contest]:
    """Why one item is contested (empty when it is not)."""
    task = get_task_type(project.task_type)
    low, _ = _posterior_items(project, posterior_below, item)
    return [c for found in (_split_items(project, task, split_share, item), low, _gold_items(project, item))
            for i, c in found.items() if i == item.pk]


def adjudication_queue(*, project: Project, reason: str = "", split_share: float = SPLIT_SHARE,
                       posterior_below: float = POSTERIOR_BELOW, page: Any = 1, per_page: int = PER_PAGE) -> Queue:
    """One page of the project's contested items not yet adjudicated, optionally of one reason."""
    contests, posteriors = contested_items(project=project, split_share=split_share, posterior_below=posterior_below)
    decided = set(Adjudication.objects.filter(project=project).values_list("item_id", flat=True))
    open_ids = [i for i in contests if i not in decided]
    counts = {key: sum(1 for i in open_ids if any(c.reason == key for c in contests[i])) for key in REASONS}
    if reason in REASONS:
        open_ids = [i for i in open_ids if any(c.reason == reason for c in contests[i])]
    positions = dict(Item.objects.filter(pk__in=open_ids).values_list("pk", "position")) if open_ids else {}
    open_ids.sort(key=lambda i: (positions.get(i, 0), i))
    current = Paginator(open_ids, per_page).get_page(page)
    rows = _rows(project, list(current.object_list), contests)
    return Queue(current, rows, counts, posteriors, split_share, posterior_below)


def adjudicated_rows(*, project: Project, page: Any = 1, per_page: int = PER_PAGE) -> tuple[Page, list[QueueRow]]:
    """One page of the project's adjudicated items, latest decision first."""
    decisions = Adjudication.objects.filter(project=project).select_related("decided_by").order_by("-decided_at", "-pk")
    current = Paginator(decisions, per_page).get_page(page)
    by_item = {a.item_id: a for a in current.object_list}
    rows = _rows(project, list(by_item), {i: [Contest(r, REASONS.get(r, r)) for r in a.contested] for i, a in by_item.items()})
    task = get_task_type(project.task_type)
    for row in rows:
        row.adjudication = by_item[row.item_id]
        row.decided = f"{task.label_display(row.adjudication.answer)} ({_fields_text(task, row.adjudication.answer)})"
    return current, rows


def _rows(project: Project, ids: list[int], contests: Mapping[int, list[Contest]]) -> list[QueueRow]:
    task = get_task_type(project.task_type)
    items = {i.pk: i for i in Item.objects.filter(pk__in=ids).only("pk", "external_id", "kind", "payload")}
    return [QueueRow(i, items[i].external_id, items[i].kind, task.item_summary(items[i].payload, length=SUMMARY_LENGTH),
                     list(contests.get(i, [])))
            for i in ids if i in items]


# --- one item ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerRow:
    """An answer as the adjudicator sees it: numbered, without the worker."""

    number: int
    label: str
    fields: str
    reason: str
    seconds: float | None
    right: bool | None  # a gold answer scored against the gold answer; None otherwise


@dataclass(frozen=True)
class DecisionField:
    name: str
    kind: str  # "choice" or "choices"
    choices: list[tuple[str, str]]
    chosen: list[str]


def _fields_text(task: TaskType, answer: Mapping[str, Any]) -> str:
    parts = []
    for name in task.gold_fields:
        value = answer.get(name)
        if isinstance(value, list | tuple):
            value = ", ".join(map(str, value)) or "–"
        parts.append(f"{name}: {value}")
    return "; ".join(parts)


def item_answers(*, item: Item) -> list[AnswerRow]:
    """The item's counted answers in submission order, numbered, without who gave them (never
    those of a worker whose answers left the data by a block)."""
    task = get_task_type(item.project.task_type)
    rows = (Annotation.objects.filter(assignment__item=item, assignment__status__in=Assignment.COUNTED_STATUSES)
            .exclude(assignment__worker_id__in=excluded_worker_ids(project=item.project))
            .order_by("assignment__submitted_at", "pk")
            .values_list("answer", "reason", "seconds", "assignment__check_result__right"))
    return [AnswerRow(n, task.label_display(answer), _fields_text(task, answer), reason, seconds, right)
            for n, (answer, reason, seconds, right) in enumerate(rows, start=1)]


def _option_texts(task: TaskType, payload: Mapping[str, Any]) -> dict[str, str]:
    return {option_id: f"{option_id}: {words}" if words else option_id
            for option_id, words in task.option_texts(payload).items()}


def decision_fields(*, item: Item, chosen: Mapping[str, Any] | None = None) -> list[DecisionField]:
    """The form's fields: each gold field with the values it may take (``TaskType.gold_choices``)."""
    task = get_task_type(item.project.task_type)
    kinds = {f.name: f.kind for f in task.answer_fields}
    texts = _option_texts(task, item.payload)
    out = []
    for name in task.gold_fields:
        kind = kinds.get(name, "choice")
        values = task.gold_choices(item.payload, name) or []
        if kind == "choices" and NONE not in values:
            values = [*values, NONE]
        current = (chosen or {}).get(name)
        picked = [str(v) for v in current] if isinstance(current, list) else ([str(current)] if current is not None else [])
        if kind == "choices":
            choices = [(v, "None of these" if v == NONE else texts.get(v, v)) for v in values]
        else:
            choices = [(v, texts.get(v) or task.label_display({name: v})) for v in values]
        out.append(DecisionField(name, kind, choices, picked))
    return out


def decision_from_form(*, item: Item, data: Any) -> dict[str, Any]:
    """The decided answer read from form fields (``data.getlist`` for a "choices" field)."""
    task = get_task_type(item.project.task_type)
    kinds = {f.name: f.kind for f in task.answer_fields}
    answer: dict[str, Any] = {}
    for name in task.gold_fields:
        if kinds.get(name) == "choices":
            answer[name] = [v for v in data.getlist(name) if v]
        else:
            answer[name] = data.get(name) or None
    return answer


def adjudicated_answers(*, project: Project) -> dict[int, str]:
    """Item pk -> its decided answer as compact JSON, read once for an export."""
    return {item_id: json.dumps(answer, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
            for item_id, answer in Adjudication.objects.filter(project=project).values_list("item_id", "answer")}


def preferred_decisions(*, project: Project) -> dict[str, dict[str, Any]] | None:
    """Item external id -> decided answer, when the project's gold data prefer adjudicated
    answers (``QualityPolicy.prefer_adjudicated``); None when they do not."""
    if not QualityPolicy.objects.filter(project_id=project.pk, prefer_adjudicated=True).exists():
        return None
    return dict(Adjudication.objects.filter(project=project).values_list("item__external_id", "answer"))
