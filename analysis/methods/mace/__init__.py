"""MACE: Multi-Annotator Competence Estimation (Hovy et al., NAACL 2013).

Learns, from crowd labels alone, a label per item and a competence per worker (the probability
that the worker knows the answer rather than guessing). Options, defaults and decisions follow
the original Java tool (github.com/dirkhovy/MACE, version 0.3):

- variational Bayes by default (Beta(alpha, beta) prior on guessing vs knowing, alpha = beta =
  0.5, Dirichlet(10) on guessing strategies); ``em=True`` for maximum likelihood with additive
  ``smoothing`` (default 0.01 / number of labels);
- ``restarts`` random initialisations of ``iterations`` steps each; the restart with the highest
  log marginal likelihood wins (the first of equals);
- ``threshold`` keeps the items whose posterior entropy is at most the entropy at sorted position
  ``int(n * threshold)`` -- that is ``floor(n * threshold) + 1`` items unless entropies tie at the
  cut; 1.0 keeps all, 0.0 keeps the most certain;
- ``controls`` fixes the posterior of items whose label is known.

Deliberate differences: an item nobody annotated (and that is no control) gets no label, where the
original answers its first label; and a run is refused (MaceTooLarge, before anything large is
allocated) when it would need more than ``max_memory`` bytes. Memory follows the number of
annotations, not items x labels: posteriors and strategies come as SparseRows, one value per row
standing for every label nobody gave the item (the worker never gave).

``competence_intervals`` gives each worker's competence a percentile interval by a bootstrap over
items (MACE rerun on items drawn with replacement).

Run ``python -m analysis.methods.mace FILE.csv [options]`` for the original command line.
"""

from analysis.methods.mace.bootstrap import (
    CompetenceIntervals,
    competence_intervals,
    competence_intervals_frame,
)
from analysis.methods.mace.estimator import (
    NO_LABEL,
    MaceFrameResult,
    MaceResult,
    entropy,
    mace,
    mace_frame,
    threshold_mask,
)
from analysis.methods.mace.layout import DEFAULT_MAX_MEMORY, MaceTooLarge, memory_estimate
from analysis.methods.mace.sparse import SparseRows

__all__ = [
    "CompetenceIntervals",
    "competence_intervals",
    "competence_intervals_frame",
    "DEFAULT_MAX_MEMORY",
    "MaceFrameResult",
    "MaceResult",
    "MaceTooLarge",
    "NO_LABEL",
    "SparseRows",
    "entropy",
    "mace",
    "mace_frame",
    "memory_estimate",
    "threshold_mask",
]
