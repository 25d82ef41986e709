"""What the comprehension study counts over speeches and over titles, as bootstrap statistics.

Figures over speeches (positive pairs, titles per speech, speeches where a title was found) are
ratios of per-speech sums: the bootstrap draws speeches. Figures over titles ("titles labelled
positive at least once") are not: whether a title was positive somewhere depends on every speech that asked
it, and drawing speeches loses a title's positive speech more often than the title itself, which
biases every resample downward. Titles are therefore drawn by **title group**: a connected
component of the graph linking each speech to the titles it was asked. In the paper's design a
group is one side of one motion (its titles and the speeches on that side); its titles' counts
are sums over groups, and groups share no speech, so they resample independently.

Two readings of "positive" coexist:

- *labelled positive*: the pair's label is positive, more than half of the speech's annotators
  ticked it. The paper's "248 (~56%) of the iDebate arguments were labeled as positive at least
  once" counts titles so (its labels are the majority of five annotators, as in "354 (40.3%) are
  labeled as positive"): ``titles_labelled_positive_once``;
- *ticked*: at least one annotator ticked the title in that speech (``titles_ticked_once``, and
  ``speeches_with_positive`` over speeches).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from analysis.methods.agreement.bootstrap import Finalize, ItemAdditive, safe_divide


def title_groups(speech: np.ndarray, title: np.ndarray, n_speeches: int, n_titles: int) -> np.ndarray:
    """Group number of each title: titles linked through a speech that asked both share a group.
    Groups are numbered in the order of their first question."""
    graph = sparse.csr_matrix(
        (np.ones(speech.size), (speech, n_speeches + title)),
        shape=(n_speeches + n_titles, n_speeches + n_titles),
    )
    _, component = connected_components(graph, directed=False)
    codes, _ = pd.factorize(component[n_speeches + title])
    group = np.empty(n_titles, dtype=np.int64)
    group[title] = codes
    return group


def speech_statistics(questions: pd.DataFrame, speech: np.ndarray, n_speeches: int) -> dict[str, ItemAdditive]:
    """Figures over pairs and speeches as ratios of per-speech sums. Cells per speech:
    questions, questions positive by majority, 1, has a pair positive by majority, has a title
    that some annotator ticked."""
    majority = questions["majority"].to_numpy(dtype=float)
    found = (questions["votes"].to_numpy() > 0).astype(float)
    positives = np.bincount(speech, weights=majority, minlength=n_speeches)
    found_in_speech = np.bincount(speech, weights=found, minlength=n_speeches)
    matrix = sparse.csr_matrix(
        np.column_stack(
            [
                np.bincount(speech, minlength=n_speeches),
                positives,
                np.ones(n_speeches),
                positives > 0,
                found_in_speech > 0,
            ]
        ).astype(float)
    )
    totals = np.asarray(matrix.sum(axis=0)).ravel()

    def build() -> sparse.csr_matrix:
        return matrix

    return {
        "positive_share": ItemAdditive(totals, build, _ratio(1, 0)),
        "titles_per_speech": ItemAdditive(totals, build, _ratio(0, 2)),
        "speeches_with_majority": ItemAdditive(totals, build, _ratio(3, 2)),
        "speeches_with_positive": ItemAdditive(totals, build, _ratio(4, 2)),
    }


def title_statistics(
    questions: pd.DataFrame, title: np.ndarray, group: np.ndarray
) -> dict[str, ItemAdditive]:
    """Shares of titles positive in at least one speech that asked them, as ratios of per-group
    sums. Cells per group: titles, titles labelled positive (by majority) somewhere (the paper's
    count), titles some annotator ticked somewhere."""
    n_titles = group.size
    majority = np.zeros(n_titles, dtype=bool)
    found = np.zeros(n_titles, dtype=bool)
    np.logical_or.at(majority, title, questions["majority"].to_numpy() > 0)
    np.logical_or.at(found, title, questions["votes"].to_numpy() > 0)
    n_groups = int(group.max()) + 1
    matrix = sparse.csr_matrix(
        np.column_stack(
            [
                np.bincount(group, minlength=n_groups),
                np.bincount(group, weights=majority, minlength=n_groups),
                np.bincount(group, weights=found, minlength=n_groups),
            ]
        ).astype(float)
    )
    totals = np.asarray(matrix.sum(axis=0)).ravel()

    def build() -> sparse.csr_matrix:
        return matrix

    return {
        "titles_labelled_positive_once": ItemAdditive(totals, build, _ratio(1, 0)),
        "titles_ticked_once": ItemAdditive(totals, build, _ratio(2, 0)),
    }


def _ratio(numerator: int, denominator: int) -> Finalize:
    return lambda sums: {"value": safe_divide(sums[:, numerator], sums[:, denominator])}
