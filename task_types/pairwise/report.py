"""Gold data for pairwise convincingness: the pipeline of Habernal & Gurevych (ACL 2016, 3.3-3.4).

1. MACE (threshold 0.95 as in the paper; EM, 500 iterations and 50 restarts as the authors'
   released code ran it) gives a gold label per pair and worker competences;
   pairs without a label are dropped, the rest is UKPConvArgAll.
2. Each gold pair gets the weight sigmoid(competence agreeing - lambda * competence disagreeing).
3. Per topic, pairs are added to a graph in the order of a strategy; a pair closing a cycle is
   ignored. Scenario (a) drops equal pairs first, scenario (b) merges their arguments.
4. Table 1 statistics for every strategy and scenario.
5. UKPConvArgStrict = scenario (a), descending weight; UKPConvArgRank = PageRank over the kept
   pairs of scenario (b), descending (a higher PageRank means less convincing).
6. Every pair carries why it was kept or dropped; reasons are reviewed per worker.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pandas as pd

from analysis.methods.preference_graph import STRATEGIES, Reason, preference_graph_filter
from analysis.methods.preference_graph.ranking import preference_ranking
from analysis.methods.preference_graph.stats import preference_graph_stats
from analysis.methods.preference_graph.weights import pair_weights
from analysis.methods.reasons import CAUSES, best_worker_accuracy, review_reasons
from analysis.reports import PARTS, Param, Part, Progress, Report, ReportInput, decided_labels
from analysis.reports.agreement import run_mace
from task_types.pairwise.published import PAPER, REFERENCES

__all__ = ["PAIRS", "PAPER", "REFERENCES", "REFERENCE_OPTION", "TEXTS", "PairwiseGoldReport"]

# The part of a run that holds its pairs (``analysis.models.RunPart``), one piece per topic.
PAIRS = "pairs"
# And the one that holds each topic's argument texts, as the items showed them.
TEXTS = "texts"
# Published corpora a project can reproduce (``published.REFERENCES``): a project names the one it
# reproduces in this option (``reproduce_ukpconvarg`` sets it; an admin can set it in the project's
# options), and the gold page shows that corpus's figures beside the project's own, and nowhere else.
REFERENCE_OPTION = "reference_corpus"
TABLE_FIELDS = (
    "removed_apriori", "pairs_before_first_cycle", "first_cycle_nodes", "first_cycle_edges",
    "first_cycle_length", "transitivity_mean", "transitivity_max", "final_edges", "final_nodes",
    "pairs_kept", "pairs_ignored", "largest_cluster",
)


def _clean(value: Any) -> Any:
    """JSON-safe scalars: numpy types to Python, NaN to None."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    # The columns are named by strings (str() keeps them as they are), as JSON keys must be.
    return [{str(k): _clean(v) for k, v in row.items()} for row in frame.to_dict("records")]


class PairwiseGoldReport(Report):
    kind = "pairwise_gold"
    reads_reasons = True
    title = "Pairwise gold data (MACE, transitivity filter, ranking)"
    task_types = ("pairwise",)
    page = "gold-page"
    page_label = "Gold data"
    params = (
        # The paper states only MACE's threshold (0.95). EM, 500 iterations and 50 restarts are what
        # its authors' released pipeline ran (Step5GoldLabelEstimator of
        # UKPLab/acl2016-convincing-arguments passes --iterations 500 --restarts 50 to its copy of
        # MACE 0.2, which trains by EM unless told otherwise); MACE's own defaults are 50 iterations
        # and 10 restarts (its README and source), and its current release trains by variational
        # Bayes unless given --em.
        Param("mace_em", bool, True, "MACE by EM (as the authors' released pipeline ran it) instead of variational Bayes",
              label="Estimate MACE by EM", group="MACE gold labels"),
        Param("mace_iterations", int, 500, "MACE iterations per restart (the authors' released pipeline: 500; "
              "MACE's own default: 50)", minimum=1, maximum=5000, label="Iterations per restart", group="MACE gold labels"),
        Param("mace_restarts", int, 50, "MACE restarts (the authors' released pipeline: 50; MACE's own default: 10)",
              minimum=1, maximum=500, label="Restarts", group="MACE gold labels"),
        Param("mace_threshold", float, 0.95, "share of pairs MACE labels, most certain first (the paper: 0.95)",
              minimum=0.01, maximum=1.0, label="Share of pairs labelled", group="MACE gold labels"),
        Param("penalty", float, 10.0, "lambda: weight of the competence of disagreeing votes", minimum=0.0,
              label="Penalty of disagreeing votes (λ)", group="Pair weights and argument graph"),
        Param("skip_first_pair", bool, False, "drop the first pair of each order, as the released corpus did",
              label="Skip each order's first pair", group="Pair weights and argument graph"),
        Param("equal_min_weight", float, 0.0, "scenario (b): only equal pairs of at least this weight merge",
              minimum=0.0, maximum=1.0, label="Least weight of a merged equal pair", group="Pair weights and argument graph"),
        Param("max_cluster_size", int, 0, "scenario (b): refuse merges making a node of more arguments (0: no limit)",
              minimum=0, label="Largest merged node", group="Pair weights and argument graph"),
        Param("reason_near", float, 0.8, "reasons at least this similar (word bigram Jaccard) count as reused",
              minimum=0.1, maximum=1.0, label="Similarity of reused reasons", group="Reason review"),
        Param("seed", int, 1, "seed of MACE's restarts and of the random strategy", label="Random seed",
              group="Reproducibility"),
    )

    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        votes = data.frame[["item", "worker", "label", "reason"]]
        if votes.empty:
            return {"empty": True}
        progress(0.05, "MACE gold labels")
        mace = run_mace(votes[["item", "worker", "label"]], em=params["mace_em"],
                        iterations=params["mace_iterations"], restarts=params["mace_restarts"],
                        threshold=params["mace_threshold"], seed=params["seed"])
        # Where the project prefers adjudicated answers, a decided pair takes its decision instead
        # of MACE's label (also a pair MACE left unlabelled) before the weights and the filter.
        decided = decided_labels(data.items, "label")
        labels = mace.labels.astype(object)
        decided = decided[decided.index.isin(labels.index)]
        labels.loc[decided.index] = decided
        gold = labels.dropna()
        progress(0.35, "pair weights")
        weights = pair_weights(votes, gold, mace.competence, penalty=params["penalty"])
        items = data.items.set_index("item")
        pairs = items.loc[items.index.isin(votes["item"].unique()), ["topic", "arg1", "arg2"]].copy()
        pairs["gold"] = labels.reindex(pairs.index)
        pairs["weight"] = weights.weight.reindex(pairs.index)
        pairs = pairs.rename_axis("pair").reset_index()

        options = {"skip_first_pair": params["skip_first_pair"]}
        merge_options = {**options,
                         "equal_min_weight": params["equal_min_weight"] or None,
                         "max_cluster_size": params["max_cluster_size"] or None}
        table_rows, strict_parts, rank_parts, clusters = [], [], [], []
        topics = sorted(pairs["topic"].unique())
        for n, (topic, topic_pairs) in enumerate(pairs.groupby("topic", sort=True)):
            progress(0.4 + 0.4 * n / len(topics), f"transitivity filter, topic {n + 1} of {len(topics)}")
            # Pairs without a gold label go in too: the filter counts them as removed a priori.
            for keep_equal in (False, True):
                for strategy in STRATEGIES:
                    result = preference_graph_filter(
                        topic_pairs, strategy=strategy, keep_equal=keep_equal, seed=params["seed"],
                        **(merge_options if keep_equal else options),
                    )
                    stats = preference_graph_stats(result)
                    table_rows.append({"topic": topic, "scenario": "equal merged" if keep_equal else "no equal",
                                       "strategy": strategy, **{f: getattr(stats, f) for f in TABLE_FIELDS}})
                    if strategy == "descending" and not keep_equal:
                        strict_parts.append(result.provenance.assign(topic=topic))
                    if strategy == "descending" and keep_equal:
                        # PageRank per topic, as the corpus was released: scores sum to 1 in a topic.
                        ranking = preference_ranking(result.kept)
                        rank_parts.append(pd.DataFrame({
                            "argument": ranking.pagerank.index, "topic": topic,
                            "pagerank": ranking.pagerank.to_numpy(),
                            "rank": ranking.rank.reindex(ranking.pagerank.index).to_numpy(),
                        }))
                        sizes = result.cluster_sizes
                        clusters.append({"topic": topic, "largest": int(sizes.max()) if len(sizes) else 0,
                                         "merged_nodes": int((sizes > 1).sum())})
        arguments = pd.unique(pd.concat([pairs["arg1"], pairs["arg2"]]))
        rank_frame = pd.concat(rank_parts, ignore_index=True)

        progress(0.85, "provenance")
        strict = pd.concat(strict_parts, ignore_index=True)
        provenance = self._provenance(pairs, strict, mace)
        progress(0.9, "reason review")
        texts = data.items.set_index("item")
        review = review_reasons(votes, (texts["arg1_text"] + "\n" + texts["arg2_text"]) if "arg1_text" in texts else pd.Series(dtype=str),
                                near=params["reason_near"])
        rank_of = {w: i + 1 for i, w in enumerate(mace.ranking)}
        reviewed = review.per_worker.assign(
            competence=mace.competence.reindex(review.per_worker.index).to_numpy(),
            # The stub takes a list of scalars without None; pandas reads None as a missing rank.
            mace_rank=[rank_of.get(w) for w in review.per_worker.index],  # type: ignore[misc]
        )
        flagged = reviewed[reviewed["flagged"].str.len() > 0].sort_values("mace_rank", ascending=False)
        examples = votes.assign(**{c: review.per_reason[c].to_numpy() for c in CAUSES})
        shown = self._examples(examples, flagged["flagged"])
        accuracy, accuracy_pairs = best_worker_accuracy(votes, gold, mace.competence)

        table = pd.DataFrame(table_rows)
        mean = table.groupby(["scenario", "strategy"], sort=False)[list(TABLE_FIELDS)].mean().reset_index()
        counts = {
            "pairs": int(len(pairs)),
            "all": int(len(gold)),
            "strict": int((strict["reason"] == Reason.KEPT).sum()),
            "rank": int(len(rank_frame)),
            "arguments": int(len(arguments)),
            "equal_in_all": int((gold == "equal").sum()),
            "adjudicated": int(len(decided)),
        }
        return {
            "counts": counts,
            "mace": {"method": "EM" if params["mace_em"] else "variational Bayes",
                     "log_likelihood": _clean(mace.log_likelihood), "threshold": params["mace_threshold"],
                     "competence": {str(w): _clean(c) for w, c in mace.competence.items()},
                     "ranking": [str(w) for w in mace.ranking]},
            "table1": {"mean": _records(mean), "per_topic": _records(table)},
            "clusters": clusters,
            # The pairs themselves are stored apart, one piece per topic (a page shows one topic).
            "pair_topics": sorted({str(p["topic"]) for p in provenance}),
            "pair_reasons": sorted(Counter(p["reason"] for p in provenance).items(), key=lambda kv: -kv[1]),
            PARTS: self._parts(provenance) + self._texts(data.items),
            "ranking": _records(rank_frame),
            "reason_review": {
                "flag_share": review.flag_share, "min_reasons": review.min_reasons, "near": review.near,
                "reasons_flagged": {c: int(review.per_reason[c].sum()) for c in CAUSES},
                "workers": [
                    {"worker": str(w), "reasons": int(r["reasons"]), "mace_rank": _clean(r["mace_rank"]),
                     "competence": _clean(r["competence"]), "flags": list(r["flagged"]),
                     **{f"{c}_share": _clean(r[f"{c}_share"]) for c in CAUSES},
                     "examples": shown.get(w, [])}
                    for w, r in flagged.iterrows()
                ],
            },
            "human_performance": {"best_worker_accuracy": _clean(accuracy), "pairs": accuracy_pairs},
        }

    @staticmethod
    def _parts(provenance: list[dict[str, Any]]) -> list[Part]:
        by_topic: dict[str, tuple[list[dict[str, Any]], list[int]]] = {}
        for n, row in enumerate(provenance):
            rows, indexes = by_topic.setdefault(str(row["topic"]), ([], []))
            rows.append(row)
            indexes.append(n)
        return [Part(PAIRS, topic, rows, indexes) for topic, (rows, indexes) in sorted(by_topic.items())]

    @staticmethod
    def _texts(items: pd.DataFrame) -> list[Part]:
        if "arg1_text" not in items or "topic" not in items:
            return []
        texts: dict[str, dict[str, str]] = {}
        for side in ("arg1", "arg2"):
            for topic, argument, text in items[["topic", side, f"{side}_text"]].itertuples(index=False):
                texts.setdefault(str(topic), {})[str(argument)] = str(text)
        return [Part(TEXTS, topic, [{"argument": a, "text": t} for a, t in by_id.items()], [])
                for topic, by_id in sorted(texts.items())]

    @staticmethod
    def _examples(examples: pd.DataFrame, flags: pd.Series) -> dict[Any, list[str]]:
        """Up to three reasons of each flagged worker that were suspicious for a cause the worker
        is flagged for, in one pass over the reasons (not one per flagged worker)."""
        mine = examples[examples["worker"].isin(flags.index)]
        hit = pd.Series(False, index=mine.index)
        for cause in CAUSES:
            workers = [w for w, causes in flags.items() if cause in causes]
            hit |= mine["worker"].isin(workers) & mine[cause]
        first = mine[hit].groupby("worker", sort=False).head(3)
        return first.groupby("worker", sort=False)["reason"].agg(list).to_dict()

    @staticmethod
    def _provenance(pairs: pd.DataFrame, strict: pd.DataFrame, mace) -> list[dict[str, Any]]:
        """Why each pair is in or out of UKPConvArgAll and UKPConvArgStrict."""
        by_pair = strict.set_index("pair")
        out = []
        entropy = mace.entropies
        for row in pairs.to_dict("records"):
            entry = {"pair": row["pair"], "topic": row["topic"], "arg1": row["arg1"], "arg2": row["arg2"],
                     "gold": row["gold"] if isinstance(row["gold"], str) else None,
                     "weight": _clean(row["weight"]), "entropy": _clean(entropy.get(row["pair"])),
                     "all": isinstance(row["gold"], str)}
            s = by_pair.loc[row["pair"]]
            reason = "mace_threshold" if s["reason"] == Reason.NO_GOLD else str(s["reason"])
            entry.update(strict=bool(s["reason"] == Reason.KEPT), reason=reason)
            if s["reason"] == Reason.CYCLE:
                entry["conflict"] = [str(p) for p in s["conflict_pairs"]]
            out.append(entry)
        return out
