"""What the crowd engine asks quality control, which lies above it (docs/development.md,
"Layers"): quality control registers its answers when Django loads it (``quality.apps``), so that
the engine never imports it. The questions (all but a review's asked on every request):

- **what to serve next**: the worker's standing in the project with the project's policy and
  their open training round (``worker_quality``), their qualification rounds
  (``qualification_taken``, ``round_open``, ``round_finish``), a training item drawn for them
  (``training_pick``), whether this claim is a gold question (``draw``), and training items left
  unanswered, counted as wrong (``round_count_unanswered``);
- **what a submit means**: a gold or training answer's score and what follows from it, in the
  submit's transaction (``check_score``), and the rules judged once it has committed
  (``answer_rules_after_commit``);
- **what the worker is shown of it**, on the annotation page (``page_context``,
  ``page_feedback_keep``, ``page_feedback_take``) and in the API (``api_next``,
  ``api_feedback``);
- **what a review means**: a gold answer rejected or approved again counts for or against its
  worker no more, or again (``gold_counts_recount``);
- **what an item import and the data read of it**: the known answers a file brings, in the
  import's transaction (``gold_answers_import``, ``known_answers``, ``gold_coverage_warnings``),
  and the adjudicated answers exports and gold data take (``adjudicated_answers``,
  ``preferred_decisions``);
- **what the engine and the analysis read** of the workers' standings and the project's policy
  (``excluded_worker_ids`` and the others under "Reads"), so that none of them imports the
  quality-control models (the standings' names are the engine's own ``Standing``).

The engine sees quality control's records only through the fields it reads
(``StandingRecord``, ``PolicyRecord``, ``RoundRecord``, ``CheckRecord``).

Each answer is looked up when asked, so that a test may replace one (``check_serving.draw``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured

from annotation.models import Annotation, Assignment, Item, Project, Standing

# A worker in one of these gets no item and their answers are no longer awaited.
STOPPED = (Standing.BLOCKED, Standing.SCREENED_OUT)
# ``quality.models.TrainingRound.Kind.QUALIFICATION``, tested equal there.
QUALIFICATION = "qualification"


# What the engine reads of quality control's records (``quality.models``): the records
# themselves, seen only through these fields, so that the engine never imports them.
class StandingRecord(Protocol):
    @property
    def pk(self) -> Any: ...
    @property
    def state(self) -> str: ...


class PolicyRecord(Protocol):
    @property
    def gold_rate(self) -> float: ...
    @property
    def review_pauses_work(self) -> bool: ...
    @property
    def qualification_items(self) -> int: ...
    @property
    def qualification_attempts(self) -> int: ...
    @property
    def screened_out_url(self) -> str: ...
    @property
    def screened_out_code(self) -> str: ...


class RoundRecord(Protocol):
    """A training round: the qualification or a re-calibration."""

    @property
    def pk(self) -> Any: ...
    @property
    def number(self) -> int: ...


class CheckRecord(Protocol):
    """A gold or training answer, scored."""

    @property
    def right(self) -> bool: ...
    @property
    def score(self) -> float: ...


@dataclass(frozen=True)
class WorkerQuality:
    standing: StandingRecord
    policy: PolicyRecord
    # The worker's open training round in the project (qualification or re-calibration).
    open_round: RoundRecord | None


@dataclass(frozen=True)
class CheckOutcome:
    result: CheckRecord
    # Whether the worker is shown anything now: after a gold question when the project gives
    # gold feedback; after a training item as its ``training_feedback`` says (after each item,
    # or once the round closes).
    feedback: bool
    # Empty unless the expected answer is shown (``expected_shown``).
    explanation: str = ""
    # Whether the feedback names the expected answer and why: after a gold question, and after a
    # training item under "after_each"; otherwise only whether it was right.
    expected_shown: bool = True
    # Under "after_round", on the answer that closed the round: each of its items right or not,
    # in the order they were settled (skipped, flagged and expired ones as not right).
    round_results: tuple[bool, ...] = ()


# The modules that answer: "serving", "checks", "rules", "page", "api", "counts", "gold",
# "adjudication", and the reads' "reads" and "standing".
_ANSWERS: dict[str, Any] = {}


def quality_port_register(*, serving: Any, checks: Any, rules: Any, page: Any, api: Any, counts: Any, gold: Any,
                          adjudication: Any) -> None:
    """Who answers each question: objects (modules) with the functions named above."""
    _ANSWERS.update(serving=serving, checks=checks, rules=rules, page=page, api=api, counts=counts, gold=gold,
                    adjudication=adjudication)


def _answer(part: str, name: str) -> Any:
    try:
        return getattr(_ANSWERS[part], name)
    except KeyError:
        raise ImproperlyConfigured('Quality control is not installed: "quality" belongs in INSTALLED_APPS.') from None


# --- What to serve next ---------------------------------------------------------------------

def worker_quality(*, project: Project, worker: User, now: datetime) -> WorkerQuality:
    return _answer("serving", "worker_quality")(project=project, worker=worker, now=now)


def qualification_taken(*, project: Project, worker: User) -> list[RoundRecord]:
    return _answer("serving", "qualification_taken")(project=project, worker=worker)


def round_open(*, project: Project, worker: User, kind: str, policy: PolicyRecord,
               now: datetime) -> RoundRecord | None:
    return _answer("serving", "round_open")(project=project, worker=worker, kind=kind, policy=policy, now=now)


def round_finish(*, training_round: RoundRecord, now: datetime) -> RoundRecord:
    return _answer("serving", "round_finish")(training_round=training_round, now=now)


def round_count_unanswered(*, assignment_ids: Sequence[int], how: str, now: datetime) -> int:
    return _answer("serving", "round_count_unanswered")(assignment_ids=assignment_ids, how=how, now=now)


def training_pick(*, project: Project, worker: User) -> Item | None:
    return _answer("serving", "training_pick")(project=project, worker=worker)


def draw() -> float:
    return _answer("serving", "draw")()


# --- What a submit means ----------------------------------------------------------------------

def check_score(*, assignment: Assignment, annotation: Annotation, task: Any, now: datetime) -> CheckOutcome | None:
    return _answer("checks", "check_score")(assignment=assignment, annotation=annotation, task=task, now=now)


def answer_rules_after_commit(*, assignment: Assignment, annotation: Annotation, task: Any) -> None:
    _answer("rules", "answer_rules_after_commit")(assignment=assignment, annotation=annotation, task=task)


# --- What the worker is shown of it ---------------------------------------------------------

def page_context(request: Any, project: Project, result: Any) -> dict[str, Any]:
    return _answer("page", "quality_context")(request, project, result)


def page_feedback_keep(request: Any, project: Project, outcome: Any) -> None:
    _answer("page", "feedback_keep")(request, project, outcome)


def page_feedback_take(request: Any, project: Project) -> dict[str, Any] | None:
    return _answer("page", "feedback_take")(request, project)


def api_next(request: Any, project: Project, result: Any) -> dict[str, Any]:
    return _answer("api", "next_quality")(request, project, result)


def api_feedback(outcome: Any) -> dict[str, Any] | None:
    return _answer("api", "feedback_data")(outcome)


# --- What a review means --------------------------------------------------------------------

def gold_counts_recount(*, project: Project, worker_ids: Sequence[int]) -> int:
    return _answer("counts", "gold_counts_recount")(project=project, worker_ids=worker_ids)


# --- What an item import and the data read of it ---------------------------------------------

def gold_answers_import(*, project: Project, answers: Sequence[Any], now_real: Sequence[int]) -> None:
    """Store the known answers an item file brings, inside the import's transaction."""
    _answer("gold", "gold_answers_import")(project=project, answers=answers, now_real=now_real)


def known_answers(*, item_ids: Sequence[int]) -> dict[int, tuple[Any, Any, str]]:
    return _answer("gold", "known_answers")(item_ids=item_ids)


def gold_coverage_warnings(*, project: Project) -> list[str]:
    return _answer("gold", "gold_coverage_warnings")(project=project)


def adjudicated_answers(*, project: Project) -> dict[int, str]:
    """Item pk -> its decided answer as compact JSON (an export's ``adjudicated`` column)."""
    return _answer("adjudication", "adjudicated_answers")(project=project)


def preferred_decisions(*, project: Project) -> dict[str, dict[str, Any]] | None:
    """Item external id -> decided answer, when the project's gold data prefer adjudicated ones."""
    return _answer("adjudication", "preferred_decisions")(project=project)


# --- Reads: what the engine and the analysis read of standings and policies --------------------
# Each is the read its caller made itself (a subquery or an expression goes into the caller's own
# query), so that no request reads more than before.

def quality_reads_register(*, reads: Any, standing: Any) -> None:
    """Who answers the reads ("reads") and the standing changes the engine makes ("standing")."""
    _ANSWERS.update(reads=reads, standing=standing)


def excluded_worker_ids(*, project: Project) -> Any:
    """The ids of the workers whose answers left the project's data, as a subquery."""
    return _answer("reads", "excluded_worker_ids")(project=project)


def excluded_workers(*, project: Project) -> int:
    return _answer("reads", "excluded_workers")(project=project)


def promoted_gold(*, prefix: str = "") -> Any:
    """A ``Q`` on items: gold questions promoted from real items."""
    return _answer("reads", "promoted_gold")(prefix=prefix)


def standings_by_worker(*, project: Project, worker_ids: Any = None) -> dict[int, str]:
    return _answer("reads", "standings_by_worker")(project=project, worker_ids=worker_ids)


def workers_in(*, project_id: int, worker_ids: Any, state: str) -> set[int]:
    return _answer("reads", "workers_in")(project_id=project_id, worker_ids=worker_ids, state=state)


def worker_stopped(*, project_id: Any, worker_id: Any) -> Any:
    """An ``Exists``: the worker is blocked or screened out in the project (ids may be ``OuterRef``)."""
    return _answer("reads", "worker_stopped")(project_id=project_id, worker_id=worker_id)


def worker_blocked(*, project: Project, worker: User) -> bool:
    return _answer("reads", "worker_blocked")(project=project, worker=worker)


def standing_shown(*, project: Project, worker: User) -> str:
    return _answer("reads", "standing_shown")(project=project, worker=worker)


def gold_rate(*, project: Project) -> float:
    return _answer("reads", "gold_rate")(project=project)


def gold_feedback(*, project_id: int) -> bool:
    return _answer("reads", "gold_feedback")(project_id=project_id)


def worker_standings(*, project_id: int, worker_ids: Any) -> dict[int, Any]:
    return _answer("reads", "worker_standings")(project_id=project_id, worker_ids=worker_ids)


def block_decisions(*, project_id: int, worker_ids: Any) -> dict[int, Any]:
    """Worker id -> the latest decision (a ``RuleDecision``) of a rule that blocked them."""
    return _answer("reads", "block_decisions")(project_id=project_id, worker_ids=worker_ids)


def open_flag_count(*, project: Project) -> int:
    return _answer("reads", "open_flag_count")(project=project)


def standing_activate(*, standing_id: int, now: datetime) -> None:
    """The worker goes on as active (their project dropped its qualification meanwhile)."""
    _answer("standing", "standing_activate")(standing_id=standing_id, now=now)
