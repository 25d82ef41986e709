"""Every agreement figure of a long frame in one call, with bootstrap intervals over items."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from analysis.methods.agreement.alpha import (
    PACKAGE_LEVELS,
    AlphaLevel,
    KrippendorffAlpha,
    alpha_distance,
    alpha_point,
    alpha_result,
    alpha_statistic,
)
from analysis.methods.agreement.bootstrap import Interval, IntervalMethod, bootstrap_intervals
from analysis.methods.agreement.counts import (
    MultiRaterAgreement,
    PercentAgreement,
    counts_statistics,
    multi_rater_result,
)
from analysis.methods.agreement.frames import EncodedFrame, ensure_encoded, item_label_counts
from analysis.methods.agreement.kappa import (
    PairWeighting,
    PairwiseKappa,
    pairwise_result,
    pairwise_statistic,
    worker_pairs,
)
from analysis.methods.agreement.sets import SET_DISTANCES, SetDistance
from analysis.methods.agreement.votes import (
    HighConfidence,
    PositiveVotes,
    has_binary_labels,
    high_confidence_result,
    high_confidence_statistic,
    positive_votes,
)

WEIGHTED_LEVELS = ("ordinal", "interval", "ratio")


@dataclass(frozen=True)
class AgreementReport:
    """All agreement figures of one frame. ``n_labels`` is the number of distinct labels."""

    n_annotations: int
    n_items: int
    n_workers: int
    n_labels: int
    label_kind: str
    level: str
    cohen_kappa: PairwiseKappa
    fleiss_kappa: MultiRaterAgreement
    gwet_ac1: MultiRaterAgreement
    percent_agreement: PercentAgreement
    krippendorff_alpha: KrippendorffAlpha
    high_confidence: HighConfidence
    quadratic_weighted_kappa: PairwiseKappa | None = None  # ordinal, interval, ratio levels
    alpha_by_set_distance: Mapping[str, KrippendorffAlpha] = field(default_factory=dict)
    positive_votes: PositiveVotes | None = None  # binary or set-valued labels
    n_boot: int = 0
    seed: int | None = None
    confidence: float = 0.95
    interval_method: IntervalMethod = "percentile"

    def to_dict(self) -> dict[str, object]:
        """Flat JSON-ready figures; undefined values are None; intervals under "bootstrap"."""
        out: dict[str, object] = {
            "n_annotations": self.n_annotations,
            "n_items": self.n_items,
            "n_workers": self.n_workers,
            "n_labels": self.n_labels,
            "label_kind": self.label_kind,
            "level": self.level,
        }
        figures: dict[str, Interval | None] = {}
        for name, kappa in (
            ("cohen_kappa", self.cohen_kappa),
            ("quadratic_weighted_kappa", self.quadratic_weighted_kappa),
        ):
            if kappa is None:
                continue
            out[name] = _number(kappa.value)
            out[f"{name}_pairs"] = kappa.n_pairs
            out[f"{name}_pairs_undefined"] = kappa.n_pairs_undefined
            figures[name] = kappa.interval
        out["cohen_kappa_pairs_sharing_items"] = self.cohen_kappa.n_pairs_sharing
        out["cohen_kappa_min_overlap"] = self.cohen_kappa.min_overlap
        out["cohen_kappa_weighting"] = self.cohen_kappa.weighting
        for name, coefficient in (("fleiss_kappa", self.fleiss_kappa), ("gwet_ac1", self.gwet_ac1)):
            out[name] = _number(coefficient.value)
            out[f"{name}_p_expected"] = _number(coefficient.p_expected)
            figures[name] = coefficient.interval
        out["fleiss_kappa_fixed_ratings"] = self.fleiss_kappa.fixed_ratings
        out["krippendorff_alpha"] = _number(self.krippendorff_alpha.value)
        out["krippendorff_alpha_level"] = self.krippendorff_alpha.level
        figures["krippendorff_alpha"] = self.krippendorff_alpha.interval
        for distance, alpha in self.alpha_by_set_distance.items():
            out[f"krippendorff_alpha_{distance}"] = _number(alpha.value)
            figures[f"krippendorff_alpha_{distance}"] = alpha.interval
        out["percent_agreement"] = _number(self.percent_agreement.value)
        out["percent_agreement_items"] = self.percent_agreement.n_items
        figures["percent_agreement"] = self.percent_agreement.interval
        out["high_confidence_share"] = _number(self.high_confidence.share)
        out["high_confidence_items"] = self.high_confidence.n_items
        out["high_confidence_rule"] = (
            f"at least m-{self.high_confidence.slack} of m ratings agree, m >= {self.high_confidence.min_ratings}"
        )
        figures["high_confidence_share"] = self.high_confidence.interval
        if self.positive_votes is not None:
            out["positive_votes"] = self.positive_votes.to_dict()
        if self.n_boot:
            out["bootstrap"] = {
                "n_boot": self.n_boot,
                "seed": self.seed,
                "confidence": self.confidence,
                "method": self.interval_method,
                "intervals": {
                    name: [_number(low), _number(high)]
                    for name, (low, high) in ((n, i) for n, i in figures.items() if i is not None)
                },
            }
        return out


def agreement_report(
    frame: pd.DataFrame | EncodedFrame,
    *,
    level: str = "nominal",
    categories: Sequence[Hashable] | None = None,
    set_distance: SetDistance = "masi",
    min_overlap: int = 10,
    pair_weighting: PairWeighting = "mean",
    high_confidence_slack: int = 1,
    high_confidence_min_ratings: int = 3,
    n_boot: int = 0,
    seed: int | None = None,
    confidence: float = 0.95,
    interval_method: IntervalMethod = "percentile",
) -> AgreementReport:
    """Compute every agreement figure of a long frame (item, worker, label).

    ``level`` sets Krippendorff's alpha distance and, for ordinal/interval/ratio, adds the
    quadratic weighted pairwise kappa. Set-valued labels take ``set_distance`` ("masi" or
    "jaccard") for alpha (both are reported); the kappas, AC1 and percent agreement count only
    identical answers as agreeing. With ``n_boot > 0`` every figure gets a percentile interval
    from the same ``n_boot`` resamples of items (seedable with ``seed``); see
    :func:`bootstrap_intervals` for ``interval_method``.
    """
    if level not in PACKAGE_LEVELS:
        raise ValueError(f"unknown level {level!r}; known: {', '.join(PACKAGE_LEVELS)}")
    encoded = ensure_encoded(frame, categories=categories)
    sets = encoded.kind == "sets"
    if sets and level != "nominal":
        raise ValueError("set-valued labels have no order: use level 'nominal' and a set_distance")
    if set_distance not in SET_DISTANCES:
        raise ValueError(
            f"unknown set distance {set_distance!r}; known: {', '.join(SET_DISTANCES)}"
        )
    counts = item_label_counts(encoded)
    statistics = dict(counts_statistics(counts))
    pairs = worker_pairs(encoded, min_overlap=min_overlap)
    statistics["cohen_kappa"] = pairwise_statistic(pairs, weights=None, weighting=pair_weighting)
    weighted = level in WEIGHTED_LEVELS
    if weighted:
        if not encoded.ordered:
            raise ValueError(
                f"level {level!r} needs ordered labels: numbers, or `categories` in order"
            )
        statistics["quadratic_weighted_kappa"] = pairwise_statistic(
            pairs, weights="quadratic", weighting=pair_weighting
        )
    alpha_levels: list[AlphaLevel] = (
        [set_distance, *(d for d in SET_DISTANCES if d != set_distance)] if sets else [level]
    )
    for alpha_level in alpha_levels:
        distance = alpha_distance(encoded, alpha_level)
        statistics[f"alpha_{alpha_level}"] = alpha_statistic(
            counts, distance, fixed=alpha_level != "ordinal"
        )
    statistics["high_confidence"] = high_confidence_statistic(
        counts, slack=high_confidence_slack, min_ratings=high_confidence_min_ratings
    )
    intervals = bootstrap_intervals(
        statistics,
        encoded.n_items,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        method=interval_method,
    )

    alphas: dict[str, KrippendorffAlpha] = {}
    for alpha_level in alpha_levels:
        value, backend = alpha_point(
            encoded, counts, statistics[f"alpha_{alpha_level}"], level=alpha_level, backend="auto"
        )
        alphas[alpha_level] = alpha_result(
            value, alpha_level, counts, backend, intervals.get(f"alpha_{alpha_level}")
        )

    def pairwise(name: str, weights: Literal["quadratic"] | None) -> PairwiseKappa:
        return pairwise_result(
            pairs,
            statistics[name],
            weights=weights,
            weighting=pair_weighting,
            min_overlap=min_overlap,
            interval=intervals.get(name),
        )

    percent = statistics["percent_agreement"]
    return AgreementReport(
        n_annotations=encoded.n_annotations,
        n_items=encoded.n_items,
        n_workers=encoded.n_workers,
        n_labels=encoded.n_categories,
        label_kind=encoded.kind,
        level=level,
        cohen_kappa=pairwise("cohen_kappa", None),
        quadratic_weighted_kappa=pairwise("quadratic_weighted_kappa", "quadratic")
        if weighted
        else None,
        fleiss_kappa=multi_rater_result(
            "fleiss_kappa", statistics["fleiss_kappa"], counts, intervals.get("fleiss_kappa")
        ),
        gwet_ac1=multi_rater_result(
            "gwet_ac1", statistics["gwet_ac1"], counts, intervals.get("gwet_ac1")
        ),
        percent_agreement=PercentAgreement(
            percent.point()["value"],
            int((counts.ratings >= 2).sum()),
            intervals.get("percent_agreement"),
        ),
        krippendorff_alpha=alphas[alpha_levels[0]],
        alpha_by_set_distance=alphas if sets else {},
        high_confidence=high_confidence_result(
            counts,
            slack=high_confidence_slack,
            min_ratings=high_confidence_min_ratings,
            interval=intervals.get("high_confidence"),
        ),
        positive_votes=positive_votes(encoded)
        if sets or has_binary_labels(encoded.categories)
        else None,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        interval_method=interval_method,
    )


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)
