"""The response-scoring report: how well the raters agree on the rubric, the automatic content
scores of every response (base and new ROUGE-1, the TF-IDF cosine) on its ASR and its manual
transcript, their relation to the human scores laid out as the study's two tables with the
study's figures beside them, and the word error rate of the ASR transcripts per prompt type.

The study: content accuracy of spoken responses scored with ROUGE (poster; 5,934 responses to 24
prompts, expert raters). Its figures below are copied from the poster; ours come from the
project's own answers. Everything here runs in the report's job, never in a request.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.agreement import (
    krippendorff_alpha,
    pairwise_cohen_kappa,
    pairwise_kappa_table,
)
from analysis.methods.content_scores import (
    FOLDS,
    content_scores,
    corpus_word_error_rate,
    score_relation,
    study,
    tokenize_texts,
)
from analysis.reports import Param, Progress, Report, ReportInput
from task_types.response_scoring.corpus import PROMPT_TYPES

SCALE = (1, 2, 3, 4)
TRANSCRIPTS = {"asr": "asr_transcript", "manual": "transcript"}
SCORE_NAMES = {"cva": "CVA (TF-IDF cosine)", "base": "Base ROUGE", "new": "New ROUGE"}
# The study's figures (poster; analysis.methods.content_scores.study): two expert raters' kappa,
# its first table (each score alone: r and κ on ASR and manual transcripts), its second (absolute
# and partial r) and the ASR word error rate per prompt type.
STUDY_KAPPA = study.EXPERT_KAPPA
STUDY_TABLE1 = {name: {"asr": (r_asr, k_asr), "manual": (r_man, k_man)}
                for name, (r_asr, k_asr, r_man, k_man) in study.CONTENT_ONLY.items()}
STUDY_TABLE2 = {name: {"asr": (abs_asr, part_asr), "manual": (abs_man, part_man)}
                for name, (abs_asr, abs_man, part_asr, part_man) in study.LENGTH_TABLE.items()}
STUDY_WER = {"narration": study.ASR_WER["picture narration"], "summary": study.ASR_WER["summarisation"]}
SCORE_COLUMNS = ["response", "prompt_id", "prompt_type", "speaker", "n_ratings", "human_scores", "human_mean",
                 "words_asr", "base_asr", "new_asr", "cva_asr", "words_manual", "base_manual", "new_manual", "cva_manual"]


def _number(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), 6)


def rater_agreement(frame: pd.DataFrame, *, min_overlap: int) -> dict[str, Any]:
    """Quadratic weighted kappa per rater pair and their mean, ordinal alpha, and Pearson's r
    per pair and their mean, over the answers' integer scores."""
    scores = frame.assign(label=frame["label"].astype(int))[["item", "worker", "label"]]
    kappa = pairwise_cohen_kappa(scores, weights="quadratic", min_overlap=min_overlap, categories=SCALE)
    pairs = pairwise_kappa_table(scores, weights="quadratic", min_overlap=min_overlap, categories=SCALE)
    wide = scores.pivot(index="item", columns="worker", values="label")
    rows: list[dict[str, Any]] = []
    for a, b, shared, k in pairs.itertuples(index=False):
        both = wide[[a, b]].dropna()
        r = both[a].corr(both[b]) if len(both) > 1 else math.nan
        rows.append({"worker_a": str(a), "worker_b": str(b), "shared_items": int(shared),
                     "qwk": _number(k), "pearson_r": _number(r)})
    rs = [row["pearson_r"] for row in rows if row["pearson_r"] is not None]
    alpha = krippendorff_alpha(scores, level="ordinal", categories=SCALE) if scores["item"].duplicated().any() else None
    return {"qwk_mean": _number(kappa.value), "n_pairs": kappa.n_pairs, "pairs": rows,
            "pearson_mean": _number(float(np.mean(rs))) if rs else None,
            "alpha_ordinal": _number(alpha.value) if alpha is not None else None,
            "n_raters": int(scores["worker"].nunique()), "study_kappa": STUDY_KAPPA}


def response_table(frame: pd.DataFrame, items: pd.DataFrame, params: Mapping[str, Any],
                   progress: Progress) -> pd.DataFrame:
    """One row per scored response: its human scores and its content scores on each transcript."""
    scores = frame.assign(label=frame["label"].astype(int))
    human = scores.groupby("item")["label"].agg(
        n_ratings="size", human_mean="mean", human_scores=lambda s: "|".join(map(str, s)))
    meta = items.set_index("item").loc[human.index]
    table = pd.DataFrame({"item": human.index, "response": meta["response"].astype(str).to_numpy(),
                          "prompt_id": meta["prompt_id"].astype(str).to_numpy(),
                          "prompt_type": meta["prompt_type"].to_numpy(), "speaker": meta["speaker"].fillna("").to_numpy(),
                          **{c: human[c].to_numpy() for c in ("n_ratings", "human_scores", "human_mean")}})
    references = pd.DataFrame(
        [{"prompt_id": str(p), "reference_id": str(r["id"]), "text": r["text"]}
         for p, refs in meta.groupby("prompt_id")["references"].first().items() for r in (refs or [])],
        columns=["prompt_id", "reference_id", "text"])
    for n, (kind, column) in enumerate(TRANSCRIPTS.items()):
        progress(0.3 + 0.3 * n, f"content scores on the {kind} transcripts")
        texts = meta[column].fillna("").astype(str).to_numpy()
        has = (texts != "") & table["prompt_id"].isin(references["prompt_id"]).to_numpy()
        for name in ("words", "base", "new", "cva"):
            table[f"{name}_{kind}"] = np.nan
        if not has.any():
            continue
        options = {name: bool(params.get(name, False)) for name in ("stem", "stopwords", "lemmatize")}
        table.loc[has, f"words_{kind}"] = tokenize_texts(list(texts[has]), **options).lengths
        found = content_scores(
            references=references,
            responses=pd.DataFrame({"response_id": table.loc[has, "item"].to_numpy(),
                                    "prompt_id": table.loc[has, "prompt_id"].to_numpy(), "text": texts[has]}),
            k=params["references"], **options)
        for name in ("base", "new", "cva"):
            table.loc[has, f"{name}_{kind}"] = found[name].to_numpy()
    return table


def relations(table: pd.DataFrame, *, folds: int = FOLDS) -> list[dict[str, Any]]:
    """The study's two tables as rows: per score and transcript, r; κ after the regression mapping
    to 1–4 fitted in cross-validation with folds by speaker (held out, the figure) and fitted on
    the same responses (in-sample); and the partial r with the response's length held constant.
    A response without a speaker is a group of its own."""
    rows = []
    for name, label in SCORE_NAMES.items():
        row: dict[str, Any] = {"score": name, "label": label}
        for kind in TRANSCRIPTS:
            part = table.dropna(subset=[f"{name}_{kind}"])
            speakers = part["speaker"].astype(str).where(part["speaker"].astype(str) != "", "response " + part["item"].astype(str))
            ours = score_relation(part["human_mean"], part[f"{name}_{kind}"], part[f"words_{kind}"],
                                  groups=speakers.to_numpy(), folds=folds) if len(part) > 2 else None
            row[kind] = {"n": len(part), "r": _number(ours.pearson_r) if ours else None,
                         "kappa": _number(ours.qwk) if ours else None,
                         "kappa_in_sample": _number(ours.qwk_in_sample) if ours else None,
                         "folds": ours.folds if ours else 0, "speakers": int(speakers.nunique()),
                         "partial_r": _number(ours.partial_r) if ours else None,
                         "study_r": STUDY_TABLE1[name][kind][0], "study_kappa": STUDY_TABLE1[name][kind][1],
                         "study_absolute_r": STUDY_TABLE2[name][kind][0], "study_partial_r": STUDY_TABLE2[name][kind][1]}
        rows.append(row)
    return rows


def word_error_rates(items: pd.DataFrame) -> list[dict[str, Any]]:
    """ASR against manual transcripts per prompt type: summed edits over summed manual words."""
    both = items[(items["asr_transcript"].fillna("") != "") & (items["transcript"].fillna("") != "")]
    if both.empty:
        return []
    found = corpus_word_error_rate(references=both["transcript"].tolist(), hypotheses=both["asr_transcript"].tolist(),
                                   groups=both["prompt_type"].tolist())
    return [{"prompt_type": g, "label": PROMPT_TYPES.get(str(g), str(g)), "n_responses": int(n), "words": int(w),
             "wer": _number(wer), "study_wer": STUDY_WER.get(str(g))}
            for g, n, w, wer in found[["group", "n_responses", "reference_words", "wer"]].itertuples(index=False)]


class ResponseScoringReport(Report):
    kind = "response_scoring"
    title = "Rubric agreement and content scores"
    page_label = "Agreement and content scores"
    task_types = ("response_scoring",)
    template = "response_scoring/report.html"
    files = {"scores": "Every score per response with its human scores (CSV)"}
    params = (
        Param("references", int, 4, "how many of a prompt's references new ROUGE and CVA use (the study: 4)",
              minimum=1, maximum=50, label="References per prompt", group="Content scores"),
        Param("lemmatize", bool, False, "match English lemmas (went: go) before the other options (the study found "
              "no effect)", label="Lemmatisation", group="Content scores"),
        Param("stem", bool, False, "Porter stemming before matching words (the study found no effect)",
              label="Stemming", group="Content scores"),
        Param("stopwords", bool, False, "leave out English stop words (the study found no effect)",
              label="Stop-word removal", group="Content scores"),
        Param("folds", int, FOLDS, "κ of a content score is held out: its mapping to 1–4 is fitted on the other folds "
              "(folds by speaker)", minimum=2, maximum=100, label="Cross-validation folds", group="Content scores"),
        Param("min_overlap", int, 2, "rater pairs sharing fewer responses are left out of the kappas",
              minimum=1, maximum=1000, label="Responses a rater pair shares", group="Rater agreement"),
    )

    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        frame = data.frame
        if frame.empty:
            return {"empty": True, "n_annotations": 0}
        progress(0.05, "rater agreement")
        agreement = rater_agreement(frame, min_overlap=params["min_overlap"])
        table = response_table(frame, data.items, params, progress)
        progress(0.9, "relation to the human scores")
        rows = [{c: (_number(v) if isinstance(v, float) else v) for c, v in r.items() if c != "item"}
                for r in table.to_dict("records")]
        return {"n_annotations": len(frame), "n_responses": len(table), "agreement": agreement,
                "relations": relations(table, folds=params["folds"]), "wer": word_error_rates(data.items), "scores": rows}

    def page_context(self, result: Mapping[str, Any]) -> dict[str, Any]:
        return {"agreement": result.get("agreement") or {}, "relations": result.get("relations") or [],
                "wer": [{**w, "percent": None if w["wer"] is None else f"{100 * w['wer']:.1f}%",
                         "study_percent": None if w["study_wer"] is None else f"{100 * w['study_wer']:.1f}%"}
                        for w in result.get("wer") or []],
                "scores": (result.get("scores") or [])[:50]}

    def file(self, name: str, result: Mapping[str, Any]) -> tuple[str, list[str], list[dict[str, Any]]]:
        return "scores.csv", SCORE_COLUMNS, result.get("scores", [])
