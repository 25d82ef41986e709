"""Reads of the analysis side: runs, what changed since a run, activity over time."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from analysis.frames import annotations_queryset
from analysis.graph_layout import GraphLayout, preference_graph_layout
from analysis.models import AnalysisRun, RunPart
from analysis.reports.agreement import FEW_ANNOTATIONS
from analysis.reports.pairwise_gold import PAIRS, TEXTS
from annotation.models import Item, Project
from annotation.selectors.progress import project_progress
from annotation.services.tallies import HOURS, count_per_hour, project_is_large, tally_of
from annotation.task_types import get_task_type
from annotation.task_types.base import shorten

Status = AnalysisRun.Status
# (result key, label, what it means) in display order.
FIGURES = (
    ("krippendorff_alpha", "Krippendorff's alpha", "chance-corrected; the level is named in the result"),
    ("krippendorff_alpha_masi", "Krippendorff's alpha, MASI distance", "sets: partial credit for overlapping answers"),
    ("krippendorff_alpha_jaccard", "Krippendorff's alpha, Jaccard distance", "sets: partial credit for overlapping answers"),
    ("fleiss_kappa", "Fleiss' kappa", "chance-corrected, any number of answers per item"),
    ("cohen_kappa", "Cohen's kappa (mean over worker pairs)", "pairs sharing at least the minimum overlap"),
    ("quadratic_weighted_kappa", "Quadratic weighted kappa (mean over pairs)", "ordered labels only"),
    ("gwet_ac1", "Gwet's AC1", "robust when one label dominates"),
    ("percent_agreement", "Percent agreement", "share of agreeing answer pairs within items"),
    ("high_confidence_share", "High-confidence items", "share of items where all but one answer agree"),
)
WORKER_COLUMNS = (("rank", "Rank"), ("worker", "Worker"), ("annotations", "Annotations"),
                  ("competence", "Competence"), ("agreement_with_mace", "Agrees with MACE"),
                  ("median_seconds", "Median s"))
WORKER_SORTS = tuple(key for key, _ in WORKER_COLUMNS)


def runs_of(*, project: Project, kind: str | None = None) -> QuerySet[AnalysisRun]:
    qs = AnalysisRun.objects.filter(project=project)
    return qs.filter(kind=kind) if kind else qs


def latest_done(*, project: Project, kind: str) -> AnalysisRun | None:
    return runs_of(project=project, kind=kind).filter(status=Status.DONE).order_by("-finished_at", "-pk").first()


def active_run(*, project: Project, kind: str) -> AnalysisRun | None:
    return (runs_of(project=project, kind=kind).filter(status__in=[Status.QUEUED, Status.RUNNING])
            .defer("result").order_by("-pk").first())


@dataclass(frozen=True)
class RunState:
    """Where a project's analysis of one kind stands, for a result page to explain itself."""

    done: AnalysisRun | None  # the latest finished run, whose results the page shows
    running: AnalysisRun | None
    failed: AnalysisRun | None  # the latest run, when it failed after the latest finished one
    new_annotations: int | None  # counted annotations the finished run did not see
    # Counted annotations in the project; counted only when there is no finished run to show
    # (the page then says how many there are), otherwise None.
    annotations: int | None
    has_annotations: bool
    starters: list[str]  # who may start runs (a few user names), for those who may not

    @property
    def result(self) -> dict:
        return (self.done.result or {}) if self.done else {}


STARTERS_SHOWN = 5


def run_starters(*, limit: int = STARTERS_SHOWN) -> list[str]:
    """Names of active users allowed to start analysis runs: ``limit`` of them, and one more
    when there are more (so a page can say "and others")."""
    # Permissions live in the model backend (the other one only locks out password guessing).
    users = get_user_model().objects.with_perm("analysis.add_analysisrun", include_superusers=True,
                                               backend="django.contrib.auth.backends.ModelBackend")
    return list(users.order_by("username").values_list("username", flat=True)[: limit + 1])


def run_state(*, project: Project, kind: str, viewer=None) -> RunState:
    """Where the project's runs of ``kind`` stand. ``viewer`` is who looks: when they may not
    start runs and the page has to explain a missing or failed result, ``starters`` names who
    may (otherwise it stays empty: looking them up reads every user's permissions)."""
    done = latest_done(project=project, kind=kind)
    running = active_run(project=project, kind=kind)
    # The latest run that ended without a result (failed, or cancelled), unless a newer one ran.
    failed = (runs_of(project=project, kind=kind).filter(status__in=[Status.FAILED, Status.CANCELLED])
              .defer("result").order_by("-pk").first())
    if failed is not None and (running is not None or (done is not None and done.pk > failed.pk)):
        failed = None
    # Counted answers from the items' slot counters: counting the annotations reads every one.
    annotations = None if done else project_progress(project=project).submitted
    explains = failed is not None or (done is None and running is None)
    may_start = viewer is not None and viewer.has_perm("analysis.add_analysisrun")
    return RunState(
        done=done, running=running, failed=failed,
        new_annotations=annotations_since(run=done) if done else None,
        annotations=annotations,
        has_annotations=bool(annotations) if annotations is not None else annotations_queryset(project=project).exists(),
        starters=run_starters() if explains and not may_start else [],
    )


def annotations_since(*, run: AnalysisRun) -> int:
    """Counted annotations the run did not see: new ones, and ones their worker changed after the
    run began (it read the version before). Two counts that each read an index range: the
    annotations after the last one seen, and the few changed ones."""
    qs = annotations_queryset(project=run.project)
    if run.last_annotation_id is None:  # the run saw none: every counted answer is new
        return project_progress(project=run.project).submitted
    new = qs.filter(pk__gt=run.last_annotation_id).count()
    changed = (qs.filter(pk__lte=run.last_annotation_id, revised_at__isnull=False, revised_at__gt=run.started_at)
               .count() if run.started_at else 0)
    return new + changed


def annotations_per_hour(*, project: Project, hours: int = HOURS) -> list[tuple[Any, int]]:
    """Counted answers per hour over the ``hours`` up to the latest one (for imported data that
    is not now); a large project's from its tally (``annotation.tallies``), which counts the
    default span."""
    if hours == HOURS and project_is_large(project=project):
        tally = tally_of(project=project)
        return tally.per_hour if tally else []
    return count_per_hour(project=project, hours=hours)


@dataclass(frozen=True)
class FigureRow:
    key: str
    label: str
    note: str
    value: float | None
    low: float | None
    high: float | None


def argument_texts(*, project: Project, topic: str) -> dict[str, str]:
    """Argument id -> text, as the project's items of one topic showed them (the task type's
    item columns ``arg1``/``arg1_text``, ``arg2``/``arg2_text``, as the gold report reads them)."""
    task = get_task_type(project.task_type)
    texts: dict[str, str] = {}
    for payload in Item.objects.filter(project=project, payload__topic=topic).values_list("payload", flat=True):
        columns = task.item_columns(payload)
        for side in ("arg1", "arg2"):
            if side in columns and f"{side}_text" in columns:
                texts[str(columns[side])] = str(columns[f"{side}_text"])
    return texts


@dataclass(frozen=True)
class RankedArgument:
    rank: int
    argument: str
    pagerank: float
    text: str

    SHORT = 110

    @property
    def short(self) -> str:
        return shorten(self.text, self.SHORT)

    @property
    def is_cut(self) -> bool:
        return len(" ".join(self.text.split())) > self.SHORT


@dataclass(frozen=True)
class GoldTopic:
    """One topic of a gold run, as the gold page shows it."""

    topic: str
    topics: list[str]
    ranking: list[RankedArgument]  # most convincing first
    graph: GraphLayout
    reasons: list[tuple[str, int]]  # why pairs are in or out of Strict, over all topics
    # When the graph shows only the most convincing arguments of a large topic: how many.
    graph_arguments: int | None = None


# The gold page draws the kept pairs among a topic's most convincing arguments, at most this
# many: a graph of hundreds of arguments is neither readable nor quick to lay out.
GRAPH_ARGUMENTS = 40


def keeps_pairs_apart(run: AnalysisRun) -> bool:
    """Whether the run keeps its pairs apart (``RunPart``) rather than in its result."""
    return "pair_topics" in (run.result or {})


def run_pairs(run: AnalysisRun, *, topic: str | None = None) -> list[dict[str, Any]]:
    """A gold run's pairs in the order of the whole table, or one topic's."""
    if not keeps_pairs_apart(run):
        pairs = (run.result or {}).get("pairs", [])
        return pairs if topic is None else [p for p in pairs if str(p["topic"]) == topic]
    parts = RunPart.objects.filter(run=run, name=PAIRS)
    if topic is not None:
        parts = parts.filter(key=topic)
    pieces = list(parts.values_list("rows", "indexes"))
    if len(pieces) == 1:
        return pieces[0][0]
    whole: list[Any] = [None] * sum(len(rows) for rows, _ in pieces)
    for rows, indexes in pieces:
        for index, row in zip(indexes, rows, strict=True):
            whole[index] = row
    return whole


def run_argument_texts(run: AnalysisRun, *, topic: str) -> dict[str, str]:
    """Argument id -> text of one topic of a gold run, as its items showed them when it ran."""
    if not keeps_pairs_apart(run):
        return argument_texts(project=run.project, topic=topic)
    return run_texts(run, topic=topic)


def run_texts(run: AnalysisRun, *, topic: str | None = None) -> dict[str, str]:
    """Argument id -> text as a run that keeps its pairs apart saw them: one topic's, or all."""
    parts = RunPart.objects.filter(run=run, name=TEXTS)
    if topic is not None:
        parts = parts.filter(key=topic)
    return {r["argument"]: r["text"] for rows in parts.values_list("rows", flat=True) for r in rows}


def gold_topic(*, run: AnalysisRun, topic: str | None) -> GoldTopic:
    """The ranking (with argument texts) and argument graph of one topic of a gold run; an
    unknown or missing topic means the first."""
    result = run.result or {}
    if keeps_pairs_apart(run):
        topics, reasons = result["pair_topics"], [tuple(r) for r in result["pair_reasons"]]
    else:
        pairs = result.get("pairs", [])
        topics = sorted({str(p["topic"]) for p in pairs})
        reasons = sorted(Counter(p["reason"] for p in pairs).items(), key=lambda kv: -kv[1])
    if topic not in topics:
        topic = topics[0] if topics else ""
    texts = run_argument_texts(run, topic=topic) if topic else {}
    ranked = sorted((r for r in result.get("ranking", []) if str(r["topic"]) == topic),
                    key=lambda r: (r["rank"], r["argument"]))
    ranking = [RankedArgument(rank=r["rank"], argument=r["argument"], pagerank=r["pagerank"],
                              text=texts.get(r["argument"], "")) for r in ranked]
    kept = [p for p in run_pairs(run, topic=topic) if p["strict"]] if topic else []
    shown = None
    if len(ranking) > GRAPH_ARGUMENTS:
        shown = {r.argument for r in ranking[:GRAPH_ARGUMENTS]}
        kept = [p for p in kept if p["arg1"] in shown and p["arg2"] in shown]
    graph = preference_graph_layout(kept, texts=texts, ranks={r.argument: r.rank for r in ranking})
    return GoldTopic(topic=topic, topics=topics, ranking=ranking, graph=graph, reasons=reasons,
                     graph_arguments=len(shown) if shown else None)


def figure_rows(result: dict) -> list[FigureRow]:
    figures = result.get("figures", {})
    intervals = figures.get("bootstrap", {}).get("intervals", {})
    rows = []
    for key, label, note in FIGURES:
        if key not in figures:
            continue
        low, high = intervals.get(key, (None, None))
        rows.append(FigureRow(key, label, note, figures[key], low, high))
    return rows


# The least annotations behind a trusted rank, for runs made before the report had the parameter.
MIN_ANNOTATIONS = 10


def sorted_workers(result: dict, *, sort: str, descending: bool, trusted_only: bool = False) -> list[dict]:
    """The worker rows of an agreement result, each marked ``few`` when its rank rests on fewer
    annotations than the run's minimum (shown apart from the ``other_flags``); ``trusted_only``
    leaves those out."""
    minimum = result.get("min_annotations", MIN_ANNOTATIONS)
    workers = [{**w, "few": w["annotations"] < minimum,
                "other_flags": [f for f in w.get("flags", []) if f != FEW_ANNOTATIONS]}
               for w in result.get("workers", [])]
    if trusted_only:
        workers = [w for w in workers if not w["few"]]
    if sort not in WORKER_SORTS:
        sort = "rank"
    present = [w for w in workers if w.get(sort) is not None]
    missing = [w for w in workers if w.get(sort) is None]
    return sorted(present, key=lambda w: w[sort], reverse=descending) + missing
