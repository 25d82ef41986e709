"""Reads of a pairwise gold run: its pairs and argument texts (kept apart from the result, one
piece per topic), and one topic's ranking and argument graph for the gold page."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from analysis.models import AnalysisRun, RunPart
from annotation.models import Item, Project
from annotation.task_types import get_task_type
from annotation.task_types.base import shorten
from task_types.pairwise.graph_layout import GraphLayout, preference_graph_layout
from task_types.pairwise.report import PAIRS, TEXTS


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


def keeps_pairs_apart(*, run: AnalysisRun) -> bool:
    """Whether the run keeps its pairs apart (``RunPart``) rather than in its result."""
    return "pair_topics" in (run.result or {})


def run_pairs(*, run: AnalysisRun, topic: str | None = None) -> list[dict[str, Any]]:
    """A gold run's pairs in the order of the whole table, or one topic's."""
    if not keeps_pairs_apart(run=run):
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


def run_argument_texts(*, run: AnalysisRun, topic: str) -> dict[str, str]:
    """Argument id -> text of one topic of a gold run, as its items showed them when it ran."""
    if not keeps_pairs_apart(run=run):
        return argument_texts(project=run.project, topic=topic)
    return run_texts(run=run, topic=topic)


def run_texts(*, run: AnalysisRun, topic: str | None = None) -> dict[str, str]:
    """Argument id -> text as a run that keeps its pairs apart saw them: one topic's, or all."""
    parts = RunPart.objects.filter(run=run, name=TEXTS)
    if topic is not None:
        parts = parts.filter(key=topic)
    return {r["argument"]: r["text"] for rows in parts.values_list("rows", flat=True) for r in rows}


def gold_topic(*, run: AnalysisRun, topic: str | None) -> GoldTopic:
    """The ranking (with argument texts) and argument graph of one topic of a gold run; an
    unknown or missing topic means the first."""
    result = run.result or {}
    if keeps_pairs_apart(run=run):
        topics, reasons = result["pair_topics"], [tuple(r) for r in result["pair_reasons"]]
    else:
        pairs = result.get("pairs", [])
        topics = sorted({str(p["topic"]) for p in pairs})
        reasons = sorted(Counter(p["reason"] for p in pairs).items(), key=lambda kv: -kv[1])
    if topic is None or topic not in topics:
        topic = topics[0] if topics else ""
    texts = run_argument_texts(run=run, topic=topic) if topic else {}
    ranked = sorted((r for r in result.get("ranking", []) if str(r["topic"]) == topic),
                    key=lambda r: (r["rank"], r["argument"]))
    ranking = [RankedArgument(rank=r["rank"], argument=r["argument"], pagerank=r["pagerank"],
                              text=texts.get(r["argument"], "")) for r in ranked]
    kept = [p for p in run_pairs(run=run, topic=topic) if p["strict"]] if topic else []
    shown = None
    if len(ranking) > GRAPH_ARGUMENTS:
        shown = {r.argument for r in ranking[:GRAPH_ARGUMENTS]}
        kept = [p for p in kept if p["arg1"] in shown and p["arg2"] in shown]
    graph = preference_graph_layout(kept, texts=texts, ranks={r.argument: r.rank for r in ranking})
    return GoldTopic(topic=topic, topics=topics, ranking=ranking, graph=graph, reasons=reasons,
                     graph_arguments=len(shown) if shown else None)


# Table 1's columns as the gold page shows them: (heading, fields in the cell).
TABLE1_COLUMNS = (
    ("Removed a priori", ("removed_apriori",)), ("Pairs before 1st cycle", ("pairs_before_first_cycle",)),
    ("Nodes / edges then", ("first_cycle_nodes", "first_cycle_edges")), ("1st cycle length", ("first_cycle_length",)),
    ("Transitivity avg / max", ("transitivity_mean", "transitivity_max")),
    ("Final nodes / edges", ("final_nodes", "final_edges")), ("Kept", ("pairs_kept",)),
    ("Ignored", ("pairs_ignored",)), ("Largest merged node", ("largest_cluster",)),
)


def paper_value(*, value: Any) -> str:
    """A value of the paper's table as the paper prints it (whole numbers, or one decimal)."""
    if value is None:
        return "—"
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def table1_rows(*, result: dict[str, Any], reference: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Table 1 of a run, averaged over topics, one entry per scenario and strategy: this project's
    values (two decimals) and, for a project reproducing a published corpus, the paper's as printed.
    Each value comes with its field name, so the page can label every cell."""
    paper = {(r["scenario"], r["strategy"]): r for r in (reference or {}).get("table1", [])}
    rows = []
    for mean in result.get("table1", {}).get("mean", []):
        config = (mean["scenario"], mean["strategy"])
        sources = [("ours", "this project", {f: "—" if mean.get(f) is None else f"{mean[f]:.2f}"
                                             for _, fields in TABLE1_COLUMNS for f in fields})]
        if config in paper:
            sources.insert(0, ("paper", "paper", {f: paper_value(value=paper[config].get(f))
                                                  for _, fields in TABLE1_COLUMNS for f in fields}))
        rows.append({
            "scenario": mean["scenario"], "strategy": mean["strategy"],
            "sources": [{"key": f"t1-{mean['scenario'].replace(' ', '-')}-{mean['strategy']}-{key}", "label": label,
                         "cells": [[(f, values[f]) for f in fields] for _, fields in TABLE1_COLUMNS]}
                        for key, label, values in sources],
        })
    return rows
