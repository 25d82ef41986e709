"""The listening and reading comprehension report (Mirkin et al., EMNLP 2018): the paper's
figures per mode with intervals over speeches, listening vs reading on speeches done in both
modes, per-pair votes with the majority label, and a machine reference beside them: the paper's
similarity configurations scored with a TF-IDF cosine (the paper used word2vec and skip-thought
vectors; see :mod:`analysis.methods.text_reference`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
from sklearn.metrics import roc_auc_score

from analysis.methods.comprehension import comprehension_figures, mode_comparison
from analysis.methods.comprehension_votes import question_votes, vote_distribution
from analysis.methods.text_reference import machine_reference, similarities, split_motions
from analysis.reports import Param, Progress, Report, ReportInput, decided_labels
from task_types.comprehension.corpus import gold_labels

MODES = ("listening", "reading")
CONFIGURATIONS = {
    "title_whole": "argument title vs whole speech",
    "title_sentence": "argument title vs best sentence",
    "text_whole": "argument text vs whole speech",
    "text_sentence": "argument text vs best sentence",
}
# The paper's figures, in its order: (key in a mode's figures, label, what it is over and the
# paper's value: its listening figures over 200 speeches, five annotators each).
FIGURE_ROWS = (
    ("n_speeches", "Speeches", "N of the column; paper: 200"),
    ("n_questions", "(speech, title) pairs", "binary questions; paper: 878"),
    ("n_workers", "Annotators", "workers who answered; paper: five per question"),
    ("positive_share", "Pairs positive by majority", "share of pairs; a tie is negative; paper: 354 (40.3%)"),
    ("titles_per_speech", "Titles per speech", "mean over speeches; paper: 4.4"),
    ("speeches_with_positive", "Speeches with an argument found",
     "share of speeches where at least one annotator ticked a title; paper: 173 (86.5%)"),
    ("speeches_with_majority", "Speeches with a pair positive by majority", "share of speeches"),
    ("titles_labelled_positive_once", "Titles labelled positive at least once (the paper's figure)",
     "share of titles whose label (the majority of the speech's annotators) is positive in at least one speech "
     "that offered them; paper: 248 (~56%) of the iDebate arguments; interval over title groups"),
    ("titles_ticked_once", "Titles ticked by at least one annotator",
     "share of titles at least one annotator ticked in a speech that offered them; interval over title groups"),
    ("cohen_kappa", "Cohen's kappa (mean over worker pairs)", "all speeches; paper: 0.52"),
    ("cohen_kappa_pro", "Cohen's kappa, supporting speeches", "pro; paper: 0.55"),
    ("cohen_kappa_con", "Cohen's kappa, opposing speeches", "con; paper: 0.50"),
    ("fleiss_kappa", "Fleiss' kappa", "over binary questions; paper: 0.52"),
    ("high_confidence_share", "High-confidence labels", "at least m−1 of m agree; paper: 78.5%"),
)
COUNT_ROWS = {"n_speeches", "n_questions", "n_workers"}
PAIR_COLUMNS = ["speech", "motion", "stance", "title_id", "title", "mode", "votes", "annotators", "share",
                "majority", "high_confidence"]


def _mode_of(frame: pd.DataFrame) -> pd.Series:
    # Answers without a recorded mode (imported elsewhere) are counted as reading.
    mode = frame["mode"] if "mode" in frame.columns else pd.Series("reading", index=frame.index)
    return mode.fillna("reading").replace("", "reading")


# Title ids are only unique within a motion's side: inside the report a title is known by
# motion, stance and id together, joined by this separator.
SIDE = "\x1f"


def side_keys(items: pd.DataFrame) -> pd.Series:
    """item → "motion␟stance", the side of the motion a speech (and its titles) belongs to."""
    meta = items.set_index("item")
    return meta["motion"].astype(str) + SIDE + meta["stance"].astype(str)


def title_table(items: pd.DataFrame) -> pd.DataFrame:
    """One row per title of a side: ``key`` (side and id), ``id``, ``title``, ``text``."""
    sides = side_keys(items)
    rows = [{"key": sides[item] + SIDE + str(t["id"]), "id": str(t["id"]), "title": t["title"], "text": t.get("text", "")}
            for item, titles in zip(items["item"], items["titles"], strict=True) for t in (titles or [])]
    return pd.DataFrame(rows, columns=["key", "id", "title", "text"]).drop_duplicates("key")


def pair_rows(frame: pd.DataFrame, items: pd.DataFrame) -> list[dict[str, Any]]:
    """Per (speech, title, mode): the positive votes, the annotators and the majority label."""
    titles = title_table(items).set_index("key")
    meta = items.set_index("item")
    rows = []
    for mode, part in frame.groupby("mode", sort=True):
        for r in question_votes(part).to_dict("records"):
            known = r["option"] in titles.index
            rows.append({
                "speech": r["item"], "motion": meta.at[r["item"], "motion"] if r["item"] in meta.index else "",
                "stance": meta.at[r["item"], "stance"] if r["item"] in meta.index else "",
                "title_id": titles.at[r["option"], "id"] if known else r["option"].rsplit(SIDE, 1)[-1],
                "title": titles.at[r["option"], "title"] if known else "", "mode": mode, "votes": int(r["votes"]),
                "annotators": int(r["annotators"]), "share": round(float(r["share"]), 6),
                "majority": int(r["majority"]), "high_confidence": bool(r["high_confidence"]),
            })
    return rows


def adjudicated_majority(rows: list[dict[str, Any]], items: pd.DataFrame) -> list[dict[str, Any]]:
    """The per-pair rows with an adjudicated speech's decision as the majority label of its
    titles (1 for the titles decided, 0 for the others), where the project prefers adjudicated
    answers; the votes stay as they were."""
    decided = decided_labels(items, "titles")
    if decided.empty:
        return rows
    chosen = {str(item): {str(t) for t in titles} for item, titles in decided.items()}
    return [{**r, "majority": int(str(r["title_id"]) in chosen[str(r["speech"])])} if str(r["speech"]) in chosen else r
            for r in rows]


def reference(frame: pd.DataFrame, items: pd.DataFrame, params: Mapping[str, Any]) -> dict[str, Any]:
    """The TF-IDF machine reference against the crowd's majority (or the items' gold)."""
    sides = side_keys(items)
    if params["reference_labels"] == "gold":
        # Titles the gold does not judge (never annotated at the source) are left out, not negatives.
        labels = pd.DataFrame(
            [{"item": r["item"], "option": sides[r["item"]] + SIDE + title, "label": label}
             for r in items.to_dict("records")
             for title, label in (gold_labels(r["gold"], [str(t["id"]) for t in r["titles"]]) or {}).items()],
            columns=["item", "option", "label"])
    else:
        votes = question_votes(frame)
        labels = votes.rename(columns={"majority": "label"})[["item", "option", "label"]]
    if labels.empty:
        return {"problem": "no labels to compare with: no item has "
                           + ("gold" if params["reference_labels"] == "gold" else "annotations")}
    meta = items.set_index("item")
    labels = labels[labels["item"].isin(meta.index)].copy()
    labels["motion"] = labels["item"].map(meta["motion"]).astype(str)
    speeches = pd.DataFrame({"item": meta.index, "text": meta["transcript"].fillna(""),
                             "sentences": meta["sentences"]}).reset_index(drop=True)
    arguments = title_table(items).drop(columns="id").rename(columns={"key": "option"})
    motions = sorted(labels["motion"].unique())
    if len(motions) < 2:
        return {"problem": "the machine reference needs labelled speeches of at least two motions (one split "
                           f"tunes the threshold, the other tests it); there are {len(motions)}"}
    scored = similarities(speeches, arguments, labels)
    try:
        dev, test = split_motions(motions, dev_share=params["dev_share"], seed=params["split_seed"])
        result = machine_reference(scored, dev_motions=dev, test_motions=test).to_dict()
    except ValueError as exc:
        return {"problem": f"the machine reference could not be computed: {exc}"}
    # How well each cosine separates the labelled pairs at all, whatever the threshold.
    both = scored["label"].nunique() == 2
    roc_auc = {name: float(roc_auc_score(scored["label"], scored[name])) if both else None
               for name in CONFIGURATIONS}
    return {**result, "labels": params["reference_labels"], "dev_motions": [str(m) for m in dev],
            "test_motions": [str(m) for m in test], "n_pairs": len(scored),
            "positive_share": float(scored["label"].mean()), "roc_auc": roc_auc}


def reading_answers(frame: pd.DataFrame, items: pd.DataFrame, other: ReportInput,
                    slug: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """This project's frame (``frame``, already keyed by side) with the reading answers of another
    project joined to it by item external id (the same speech), and what the join kept and left
    out. The other project's listening answers are ignored, and so are its items that match no
    item here; an answer of a worker who also answered the speech here is this project's."""
    theirs = other.frame
    mode = _mode_of(theirs) if not theirs.empty else pd.Series(dtype=object)
    listening = theirs[mode == "listening"] if not theirs.empty else theirs
    read = theirs[mode != "listening"] if not theirs.empty else theirs
    ours = set(items["item"])
    unmatched = sorted(set(other.items["item"]) - ours)
    read = read[read["item"].isin(ours)]
    if not read.empty:
        known = pd.MultiIndex.from_frame(frame[["item", "worker"]].drop_duplicates())
        read = read[~pd.MultiIndex.from_frame(read[["item", "worker"]]).isin(known)]
    joined = read.assign(mode="reading", label=read["label"].astype(int),
                         option=read["item"].map(side_keys(items)) + SIDE + read["option"].astype(str))[
        ["item", "option", "worker", "label", "mode"]]
    facts = {"project": slug, "items": len(other.items), "speeches": int(joined["item"].nunique()),
             "reading_answers": int(joined.groupby(["item", "worker"]).ngroups) if not joined.empty else 0,
             "unmatched_items": len(unmatched), "unmatched_examples": [str(i) for i in unmatched[:5]],
             "listening_answers_ignored": int(listening.groupby(["item", "worker"]).ngroups) if not listening.empty else 0}
    return pd.concat([frame, joined], ignore_index=True) if not joined.empty else frame, facts


def in_mode_order(modes: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The modes of a stored result in the paper's order: a result read back from PostgreSQL's
    jsonb has its keys sorted by length, not in the order they were written."""
    return [(mode, modes[mode]) for mode in MODES if mode in modes]


def figure_columns(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The columns of the figures table, each with its own N: every mode, and between them the
    listeners' figures on the speeches that were also read (the paper's reading subset)."""
    modes = result.get("modes", {})
    columns = []
    for mode, figures in in_mode_order(modes):
        columns.append({"key": mode, "label": mode.capitalize(), "figures": figures})
        if mode == "listening" and result.get("reading_subset"):
            columns.append({"key": "reading_subset", "label": "Listening, read speeches",
                            "figures": result["reading_subset"]})
    for column in columns:
        column.update({n: column["figures"].get(n) for n in ("n_speeches", "n_questions", "n_workers")})
    return columns


class ComprehensionReport(Report):
    kind = "comprehension"
    title = "Listening and reading comprehension"
    task_types = ("comprehension",)
    page_label = "Comprehension figures"
    template = "comprehension/report.html"
    figures = {"votes": "Questions by number of positive votes (Figure 1)"}
    files = {"pairs": "Per-pair votes and majority label (CSV)"}
    params = (
        Param("min_overlap", int, 1, "binary questions two workers must share to enter the averaged Cohen's kappa",
              minimum=1, label="Shared questions for Cohen's kappa", group="Agreement"),
        Param("high_confidence_min_annotators", int, 4, "questions with fewer answers are left out of the "
              "high-confidence share (with m ≤ 3 binary answers, m−1 always agree)", minimum=2,
              label="Answers for the high-confidence share", group="Agreement"),
        Param("n_boot", int, 200, "bootstrap resamples of speeches for the intervals (0: none)", minimum=0,
              maximum=5000, label="Bootstrap resamples", group="Agreement"),
        Param("reference_labels", str, "majority", "what the machine reference is scored against: the crowd's "
              "majority label or the items' gold", choices=("majority", "gold"), label="Machine reference labels",
              group="Machine reference"),
        Param("dev_share", float, 0.5, "share of motions in the development split (the rest is the test split)",
              minimum=0.05, maximum=0.95, label="Development share of motions", group="Machine reference"),
        Param("split_seed", int, 0, "seed of the split of motions", label="Split seed", group="Machine reference"),
        Param("seed", int, 0, "seed of the bootstrap", label="Random seed", group="Reproducibility"),
        Param("reading_project", str, "", "another comprehension project whose reading answers join this project's "
              "by item external id (the same speech), as the paper's readers of a subset of the speeches heard; "
              "its listening answers and its items that match no item here are left out", project=True,
              label="Reading project", group="Reading subset"),
    )

    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        frame = data.frame
        if frame.empty:
            return {"empty": True, "n_annotations": 0}
        sides = frame["item"].map(side_keys(data.items))
        frame = frame.assign(mode=_mode_of(frame), label=frame["label"].astype(int),
                             option=sides + SIDE + frame["option"].astype(str))[
            ["item", "option", "worker", "label", "mode"]]
        joined = None
        if "reading_project" in data.others:
            frame, joined = reading_answers(frame, data.items, data.others["reading_project"],
                                            params.get("reading_project", ""))
        stance = data.items.set_index("item")["stance"]
        modes = {}
        present = [m for m in MODES if (frame["mode"] == m).any()]
        for i, mode in enumerate(present):
            progress(0.1 + 0.4 * i / len(present), f"figures of the {mode} mode")
            part = frame[frame["mode"] == mode]
            modes[mode] = comprehension_figures(
                part.drop(columns="mode"), stance, min_overlap=params["min_overlap"],
                high_confidence_min_annotators=params["high_confidence_min_annotators"],
                n_boot=params["n_boot"], seed=params["seed"]).to_dict()
            modes[mode]["figure1"] = vote_distribution(question_votes(part), n_boot=params["n_boot"],
                                                       seed=params["seed"])
        comparison = subset = None
        if len(present) == 2:
            # The paper's reading subset: the listeners' figures on the speeches that were read,
            # beside the readers' figures on them (the listening column keeps every speech).
            read = frame.loc[frame["mode"] == "reading", "item"].unique()
            heard = frame[(frame["mode"] == "listening") & frame["item"].isin(read)]
            if not heard.empty:
                progress(0.5, "listening figures on the read speeches")
                subset = comprehension_figures(
                    heard.drop(columns="mode"), stance, min_overlap=params["min_overlap"],
                    high_confidence_min_annotators=params["high_confidence_min_annotators"],
                    n_boot=params["n_boot"], seed=params["seed"]).to_dict()
            progress(0.55, "listening vs reading")
            try:
                comparison = mode_comparison(frame, min_overlap=params["min_overlap"]).to_dict()
            except ValueError as exc:
                comparison = {"problem": str(exc)}
        progress(0.7, "machine reference")
        machine = reference(frame.drop(columns="mode"), data.items, params)
        progress(0.9, "per-pair votes")
        return {"modes": modes, "reading_subset": subset, "comparison": comparison, "machine": machine,
                "pairs": adjudicated_majority(pair_rows(frame, data.items), data.items), "n_annotations": int(frame.groupby(["item", "worker"]).ngroups),
                "items_in_project": len(data.items), "reading_project": joined}

    def page_context(self, result: Mapping[str, Any]) -> dict[str, Any]:
        machine = result.get("machine") or {}
        roc_auc = machine.get("roc_auc") or {}
        rows = [{"name": name, "label": CONFIGURATIONS.get(name, name), "roc_auc": roc_auc.get(name), **values}
                for name, values in sorted((machine.get("configurations") or {}).items(),
                                           key=lambda kv: list(CONFIGURATIONS).index(kv[0]) if kv[0] in CONFIGURATIONS else len(CONFIGURATIONS))]
        modes = result.get("modes", {})
        columns = figure_columns(result)
        table = []
        for key, label, note in FIGURE_ROWS:
            cells = []
            for column in columns:
                value = column["figures"].get(key)
                if isinstance(value, dict):
                    low, high = value.get("interval") or (None, None)
                    cells.append({"value": value.get("value"), "low": low, "high": high,
                                  "n": value.get("n", value.get("n_pairs"))})
                else:
                    cells.append({"value": value, "low": None, "high": None, "n": None})
            table.append({"label": label, "note": note, "cells": cells, "count": key in COUNT_ROWS})
        distribution = [
            {"mode": mode, "m": m, "rows": [{"votes": k, "count": c, "share": sh, "interval": iv}
                                            for k, (c, sh, iv) in enumerate(zip(d["counts"], d["shares"], d["intervals"], strict=True))]}
            for mode, figures in in_mode_order(modes) for m, d in (figures.get("figure1") or {}).items()
        ]
        return {"machine_rows": rows, "modes": dict(in_mode_order(modes)), "columns": columns, "figure_table": table, "distribution": distribution,
                "comparison": result.get("comparison"), "machine": machine, "reading_project": result.get("reading_project")}

    def figure(self, name: str, result: Mapping[str, Any]) -> str:
        from analysis.plots import votes_by_m_svg

        series = {mode: figures["positive_votes"]["counts"] for mode, figures in in_mode_order(result.get("modes", {}))}
        return votes_by_m_svg(series)

    def file(self, name: str, result: Mapping[str, Any]) -> tuple[str, list[str], list[dict[str, Any]]]:
        return "pairs.csv", PAIR_COLUMNS, result.get("pairs", [])
