"""The counter-speech report (Orbach et al., ACL 2020): the annotators measured against the true
counters known by design — accuracy per annotator and overall, split by kind of counter, beside
the random-guess baseline of the same questions; the reasons given for correct and wrong answers
by the accurate annotators (the paper's Figure 2); and the automatic baselines of its section 5
(top-1 accuracy and MRR) on the project's questions, beside human accuracy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from analysis.methods.counter_speech import (
    annotator_accuracy,
    evaluate,
    motion_split,
    reason_profile,
)
from analysis.reports import Param, Progress, Report, ReportInput

REASON_TEXTS = {
    "quote": "quotes a phrase", "specific": "mentions a specific case or argument",
    "comprehensive": "more comprehensive", "order": "same order", "similar": "similar issues",
    "main_issue": "main issue", "elimination": "elimination", "guess": "guess", "other": "other",
}
METHOD_TEXTS = {"js": "Jensen–Shannon (stemmed unigrams)", "cosine": "cosine (stemmed unigrams)",
                "mi": "mutual information", "cmi": "conditional MI (c-MI)", "ngrs": "shared n-grams (ngrs)"}
WORKER_COLUMNS = ["worker", "answers", "correct", "accuracy", "random_baseline"]
# The paper's Table 3 (test set: 235 supporting speeches, 5.2 candidates on average): top-1
# accuracy (%) and MRR per setting, for the methods this report computes.
PAPER_TABLE3 = {
    "js": {"all": (51.1, 0.69), "explicit": (80.4, 0.88), "implicit": (41.2, 0.62)},
    "cosine": {"all": (40.0, 0.62), "explicit": (49.0, 0.70), "implicit": (35.8, 0.58)},
    "mi": {"all": (48.5, 0.68), "explicit": (68.6, 0.81), "implicit": (40.7, 0.62)},
    "cmi": {"all": (50.6, 0.69), "explicit": (72.5, 0.84), "implicit": (42.7, 0.63)},
    "ngrs": {"all": (45.1, 0.65), "explicit": (60.1, 0.73), "implicit": (38.8, 0.61)},
}


def _kind(gold: Any) -> str:
    kind = (gold or {}).get("kind", "") if isinstance(gold, Mapping) else ""
    return kind or "unknown"


def scored_answers(frame: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """One row per answer: worker, item, correct, n_candidates, setting (kind of the true counter)
    and reasons."""
    meta = items.set_index("item")
    gold = frame["item"].map(meta["gold"])
    counters = gold.map(lambda g: set((g or {}).get("counters", [])) if isinstance(g, Mapping) else set())
    return pd.DataFrame({
        "worker": frame["worker"], "item": frame["item"],
        "correct": [label in c for label, c in zip(frame["label"], counters, strict=True)],
        "n_candidates": frame["item"].map(meta["candidates"].map(len)),
        "setting": gold.map(_kind), "reasons": frame["reasons"] if "reasons" in frame else [[]] * len(frame),
    })


def baseline_questions(items: pd.DataFrame) -> list[tuple[str, list[str], list[int], str]]:
    """(supporting text, candidate texts, indices of the true counters shown, kind) per item that
    has gold: the questions as the annotators saw them."""
    out = []
    # Records, not itertuples: the columns hold dicts and lists, which a row tuple's stub types as scalars.
    for r in items.to_dict("records"):
        gold = r["gold"] if isinstance(r["gold"], Mapping) else {}
        ids = [c["id"] for c in r["candidates"]]
        true = [i for i, cid in enumerate(ids) if cid in gold.get("counters", [])]
        if true:
            out.append((r["supporting"], [c["transcript"] for c in r["candidates"]], true, _kind(gold)))
    return out


def motion_questions(items: pd.DataFrame) -> list[tuple[str, list[str], list[int], str]]:
    """The paper's evaluation (section 5.1): every opposing speech of the motion that the project
    holds (found among its items' candidates by corpus id) is a candidate, except those by the
    supporting speech's own speaker, and every counter of the supporting speech is a true one.
    Items without corpus ids in their gold are taken as shown."""
    records = items.to_dict("records")
    pool: dict[str, dict[str, tuple[str, str]]] = {}  # motion → corpus id → (transcript, speaker)
    for r in records:
        gold = r["gold"] if isinstance(r["gold"], Mapping) else {}
        sources, speakers = gold.get("sources") or {}, gold.get("speakers") or {}
        for c in r["candidates"]:
            if c["id"] in sources:
                pool.setdefault(str(r["motion"]), {})[sources[c["id"]]] = (c["transcript"], speakers.get(c["id"], ""))
    out = []
    for r in records:
        gold = r["gold"] if isinstance(r["gold"], Mapping) else {}
        sources = gold.get("sources") or {}
        if not sources:
            out.extend(baseline_questions(pd.DataFrame([r])))
            continue
        counters = set(gold.get("counters_all") or []) | {sources[c] for c in gold.get("counters", []) if c in sources}
        speaker = gold.get("speaker", "")
        candidates = sorted((cid, text) for cid, (text, who) in pool.get(str(r["motion"]), {}).items()
                            if not speaker or who != speaker)
        true = [i for i, (cid, _) in enumerate(candidates) if cid in counters]
        if true:
            out.append((r["supporting"], [text for _, text in candidates], true, _kind(gold)))
    return out


def baselines(items: pd.DataFrame, params: Mapping[str, Any]) -> dict[str, Any] | None:
    """The baselines' figures with the terms the parameters choose: the paper's (a seeded split of
    the project's motions; the training motions' questions give the terms, the test motions'
    are ranked) or the evaluated questions' own (every question ranked). With the paper's terms
    and no question on a training or a test motion, ``{"unavailable": why}``."""
    build = motion_questions if params["candidates"] == "motion" else baseline_questions
    if params["terms"] == "evaluated":
        questions = build(items)
        return evaluate(questions, terms="evaluated").to_dict() if questions else None
    motions = items["motion"].astype(str)
    split = motion_split(motions, seed=params["split_seed"])
    part = motions.map(split)
    training, questions = build(items[part == "train"]), build(items[part == "test"])
    counts = {name: sum(1 for v in split.values() if v == name) for name in ("train", "validation", "test")}
    about = {"seed": params["split_seed"], "motions": counts, "training_questions": len(training)}
    if not training or not questions:
        return {"unavailable": f"the split of the project's {len(split)} motion{'s' * (len(split) != 1)} "
                f"({counts['train']} train, {counts['validation']} validation, {counts['test']} test) leaves "
                f"{len(training)} training and {len(questions)} test questions; choose the evaluated "
                "questions' own terms, or another seed", "split": about}
    return {**evaluate(questions, terms="training", training=training).to_dict(), "split": about}


class CounterSpeechReport(Report):
    kind = "counter_speech"
    title = "Counter-speech accuracy, reasons and baselines"
    task_types = ("counter_speech",)
    page_label = "Accuracy and baselines"
    template = "counter_speech/report.html"
    figures = {"reasons": "Reasons of correct and wrong answers (Figure 2)"}
    files = {"workers": "Accuracy per annotator (CSV)"}
    params = (
        Param("min_accuracy", float, 0.6, "annotators whose reasons are compared (the paper: 60%)", minimum=0,
              maximum=1, label="Accuracy of annotators in the reasons figure", group="Reasons"),
        Param("baselines", bool, True, "rank each question's candidates by the automatic methods",
              label="Compute the automatic baselines", group="Baselines"),
        Param("terms", str, "training", "training: the paper's — js and cosine count the stemmed unigrams (stop "
              "words included) of at least 1% of the training motions' speech pairs, and the test motions' questions "
              "are ranked; evaluated: the terms of the ranked questions' own pairs without stop words, every "
              "question ranked", choices=("training", "evaluated"), label="Terms of Jensen–Shannon and cosine",
              group="Baselines"),
        Param("split_seed", int, 2020, "draws the paper's split of the motions: 60% train, 20% validation, 20% test",
              minimum=0, maximum=2**31 - 1, label="Seed of the motions' split", group="Baselines"),
        Param("candidates", str, "shown", "shown: the questions as the annotators saw them; motion: the paper's "
              "evaluation, every opposing speech of the motion a candidate and every counter a true one",
              choices=("shown", "motion"), label="Candidates the baselines rank", group="Baselines"),
    )

    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        if data.frame.empty:
            return {"empty": True, "n_annotations": 0}
        answers = scored_answers(data.frame, data.items)
        progress(0.2, "accuracy per annotator")
        human = annotator_accuracy(answers).to_dict()
        progress(0.4, "reasons")
        reasons = reason_profile(answers, min_accuracy=params["min_accuracy"])
        machine = None
        if params["baselines"]:
            progress(0.5, "automatic baselines")
            machine = baselines(data.items, params)
        return {"human": human, "reasons": reasons, "machine": machine, "n_annotations": len(answers),
                "items_in_project": len(data.items)}

    def page_context(self, result: Mapping[str, Any]) -> dict[str, Any]:
        machine = result.get("machine") or {}
        # In the table's own order: a result read back from PostgreSQL's jsonb has its keys
        # sorted by length, not in the order they were written.
        methods = machine.get("methods") or {}
        order = [*[m for m in METHOD_TEXTS if m in methods], *[m for m in methods if m not in METHOD_TEXTS]]
        rows = [{"method": METHOD_TEXTS.get(name, name),
                 "settings": {setting: {**v, "paper": PAPER_TABLE3.get(name, {}).get(setting)}
                              for setting, v in methods[name]["settings"].items()}}
                for name in order]
        return {"method_rows": rows, "reason_texts": REASON_TEXTS}

    def figure(self, name: str, result: Mapping[str, Any]) -> str:
        from analysis.plots import paired_shares_svg

        reasons = result.get("reasons") or {}
        labels = [REASON_TEXTS.get(code, code) for code in REASON_TEXTS]
        series = {f"correct ({reasons.get('n_correct', 0)})": [reasons.get("correct", {}).get(c, 0) for c in REASON_TEXTS],
                  f"wrong ({reasons.get('n_wrong', 0)})": [reasons.get("wrong", {}).get(c, 0) for c in REASON_TEXTS]}
        return paired_shares_svg(labels, series, ylabel="share of answers citing it")

    def file(self, name: str, result: Mapping[str, Any]) -> tuple[str, list[str], list[dict[str, Any]]]:
        return "workers.csv", WORKER_COLUMNS, (result.get("human") or {}).get("workers", [])
