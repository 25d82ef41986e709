"""Weight of a gold-labelled pair from the competence of the workers who voted on it.

Habernal & Gurevych (ACL 2016), section 3.3: ``sigmoid(agreeing - lambda * disagreeing)`` with
lambda = 10, where the sums run over the MACE competence of the workers whose vote equals /
differs from the gold label (``computeEdgeWeight`` in the reference implementation). The weight
orders pairs for the DAG filter (``preference_graph.filter``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

# Penalty on the competence of votes that disagree with the gold label (the paper's lambda).
DEFAULT_PENALTY = 10.0


@dataclass(frozen=True)
class PairWeights:
    """Per-pair weight ``sigmoid(agreeing - penalty * disagreeing)``, indexed by pair.

    ``agreeing`` / ``disagreeing`` sum the competence of the workers whose vote equals / differs
    from the gold label; the weight is NaN where the gold label is missing.
    """

    weight: pd.Series
    agreeing: pd.Series
    disagreeing: pd.Series
    penalty: float


def pair_weights(
    votes: pd.DataFrame,
    gold: pd.Series,
    competence: pd.Series,
    *,
    penalty: float = DEFAULT_PENALTY,
    item_column: str = "item",
) -> PairWeights:
    """Weight of each gold-labelled pair from the competence of its voters.

    votes: long frame with ``item_column`` (the pair), ``worker`` and ``label``; votes on items
        absent from ``gold``'s index are ignored.
    gold: gold label per pair (index = pair id); missing labels give a NaN weight.
    competence: MACE competence per worker (index = worker id).

    Every vote that differs from the gold label counts as disagreeing, whichever label it chose
    (as the reference implementation does).
    """
    missing = {item_column, "worker", "label"} - set(votes.columns)
    if missing:
        raise ValueError(f"votes lack column(s) {sorted(missing)}")
    if not gold.index.is_unique:
        raise ValueError("gold must have one label per pair (duplicate index values)")
    votes = votes[votes[item_column].isin(gold.index)]
    unknown = pd.Index(votes["worker"].unique()).difference(competence.index)
    if len(unknown):
        raise ValueError(f"no competence for {len(unknown)} worker(s), e.g. {list(unknown[:5])}")

    vote_competence = competence.reindex(votes["worker"]).to_numpy(dtype=float)
    vote_gold = gold.reindex(votes[item_column]).to_numpy(dtype=object)
    agrees = votes["label"].to_numpy(dtype=object) == vote_gold
    item = votes[item_column].to_numpy()
    agreeing = (
        pd.Series(np.where(agrees, vote_competence, 0.0)).groupby(item).sum().reindex(gold.index)
    )
    disagreeing = (
        pd.Series(np.where(agrees, 0.0, vote_competence)).groupby(item).sum().reindex(gold.index)
    )
    agreeing = agreeing.fillna(0.0).rename("agreeing")
    disagreeing = disagreeing.fillna(0.0).rename("disagreeing")
    weight = pd.Series(
        _sigmoid((agreeing - penalty * disagreeing).to_numpy()), index=gold.index, name="weight"
    ).where(gold.notna())
    return PairWeights(weight=weight, agreeing=agreeing, disagreeing=disagreeing, penalty=penalty)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp of a non-positive argument only: the penalty pushes sums far below zero.
    z = np.exp(-np.abs(x))
    sigmoid: np.ndarray = np.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))
    return sigmoid
