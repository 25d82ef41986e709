"""Position bias: how often answers chose the option shown first, against what the shown order
predicts when position plays no part.

Each answer ``a`` to item ``i`` was shown some option ``f(a)`` first and either chose it or not
(``hit``). With no position bias, whether ``a`` chose ``f(a)`` depends on the item alone, so its
chance is the share of the item's *other* answers that chose ``f(a)`` (leaving ``a`` out keeps the
estimate from counting the answer it predicts). The expected share is the mean of those chances;
it equals the observed share when every worker saw the same order, where position and content
cannot be told apart, and is what the observed share should be near when orders were drawn.
An answer alone on its item predicts nothing and is left out.

The observed share gets a Wilson score interval; a share whose interval leaves out the expected
share is flagged. Per worker, the same figures over the worker's own answers, the expectation
still from everyone else's answers to the same items: a worker who picks the left-hand argument
whatever it says shows a share near 1 against an expectation near one half. Workers are many
tests at once, so their intervals are Bonferroni-widened: with m workers of at least
``min_answers`` answers, each worker's interval has level ``1 − (1 − level) / m``, and the chance
that any worker without a position bias is flagged stays below ``1 − level``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.methods.intervals import wilson, z_for

__all__ = ["FirstShare", "PositionBias", "position_bias"]


@dataclass(frozen=True)
class FirstShare:
    answers: int  # answers counted (each with at least one other answer to its item)
    chose_first: int  # of them, those that chose the option shown first
    share: float  # chose_first / answers (NaN without answers)
    low: float  # Wilson interval of the share at ``level``
    high: float
    expected: float  # the share the shown orders predict with no position bias
    tested: bool = True  # enough answers to be flagged (workers: ``min_answers``)

    @property
    def flagged(self) -> bool:
        """Tested, and the interval leaves out the expected share."""
        return self.tested and self.answers > 0 and not (self.low <= self.expected <= self.high)


@dataclass(frozen=True)
class PositionBias:
    overall: FirstShare
    workers: dict[str, FirstShare]  # per worker, in the order of their names
    level: float
    worker_level: float  # the level of each worker's interval (Bonferroni over the workers tested)
    tested_workers: int  # workers with at least ``min_answers`` answers: only they may be flagged
    orders_varied: bool  # whether some item was shown with different options first


def position_bias(answers: pd.DataFrame, chosen: pd.DataFrame, *, level: float = 0.95,
                  min_answers: int = 1) -> PositionBias:
    """``answers``: one row per answer with ``answer``, ``item``, ``worker`` and ``first`` (the id
    of the option shown first); ``chosen``: one row per option an answer chose, with ``answer``
    and ``option`` (none for an answer that chose no option, e.g. "equal" or "None"). Workers
    with fewer than ``min_answers`` counted answers are listed but never flagged."""
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    z = z_for(level)
    frame = answers[["answer", "item", "worker", "first"]].drop_duplicates("answer")
    picked = chosen[["answer", "option"]].drop_duplicates()
    picked = picked.merge(frame[["answer", "item"]], on="answer", how="inner")
    # How many answers to each item chose each option, and how many answers each item has.
    per_option = picked.groupby(["item", "option"], sort=False).size().rename("chose").reset_index()
    per_item = frame.groupby("item", sort=False).size().rename("n").reset_index()
    frame = frame.merge(per_item, on="item", how="left")
    hits = picked.rename(columns={"option": "first"})[["answer", "first"]].assign(hit=1)
    frame = frame.merge(hits, on=["answer", "first"], how="left")
    frame["hit"] = frame["hit"].fillna(0).astype(int)
    frame = frame.merge(per_option.rename(columns={"option": "first"}), on=["item", "first"], how="left")
    frame["chose"] = frame["chose"].fillna(0).astype(int)
    frame = frame[frame["n"] >= 2].copy()
    # Leave-one-out: the other answers' share that chose what this answer was shown first.
    frame["expected"] = (frame["chose"] - frame["hit"]) / (frame["n"] - 1)
    varied = bool((frame.groupby("item")["first"].nunique() > 1).any()) if len(frame) else False

    def share(rows: pd.DataFrame, z: float, *, tested: bool = True) -> FirstShare:
        n, k = len(rows), int(rows["hit"].sum())
        low, high = wilson(k, n, z=z)
        return FirstShare(answers=n, chose_first=k, share=k / n if n else float("nan"), low=low, high=high,
                          expected=float(np.mean(rows["expected"])) if n else float("nan"), tested=tested)

    groups = sorted(frame.groupby("worker", sort=False), key=lambda kv: str(kv[0]))
    tested = sum(1 for _, rows in groups if len(rows) >= min_answers)
    worker_level = 1 - (1 - level) / max(tested, 1)
    worker_z = z_for(worker_level)
    workers = {str(worker): share(rows, worker_z, tested=len(rows) >= min_answers) for worker, rows in groups}
    return PositionBias(overall=share(frame, z), workers=workers, level=level, worker_level=worker_level,
                        tested_workers=tested, orders_varied=varied)
