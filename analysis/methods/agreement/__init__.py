"""Inter-annotator agreement of a crowd project, from the long frame ``item, worker, label``.

One row per annotation; ids may be any hashable values; labels are strings or numbers, or — for
multi-select answers — frozensets/tuples of options. One annotation per (item, worker).

Figures (each a typed function returning a frozen dataclass; ``n_boot``/``seed`` add a
percentile bootstrap interval over items):

- :func:`pairwise_cohen_kappa` — Cohen's kappa averaged over worker pairs sharing at least
  ``min_overlap`` items (mean over pairs, or weighted by shared items); ``weights="quadratic"``
  for the quadratic weighted kappa. :func:`cohen_kappa` for two raters.
- :func:`fleiss_kappa` (fixed or variable ratings per item; Gwet's generalisation, see
  :mod:`.counts`), :func:`fleiss_kappa_from_counts` for published items × categories counts.
- :func:`krippendorff_alpha` — nominal, ordinal, interval, ratio (through the ``krippendorff``
  package), MASI or Jaccard distance for set-valued answers (coincidence formulation).
- :func:`gwet_ac1`, :func:`percent_agreement`; :func:`high_confidence_share` and
  :func:`positive_votes` (0…m positive votes per binary question) in :mod:`.votes`.
- :func:`agreement_report` — all of the above at once, returning :class:`AgreementReport`
  (``.to_dict()`` for JSON).

Matrices: :func:`encode_frame` (codes via ``pd.factorize``), :func:`item_category_counts`
(items × categories via ``np.bincount``), :func:`reliability_matrix` (workers × items, dense),
:func:`within_item_pairs`.

The command line ``python -m analysis.methods.agreement`` is in :mod:`.cli`.
"""

from __future__ import annotations

from analysis.methods.agreement.alpha import KrippendorffAlpha, krippendorff_alpha
from analysis.methods.agreement.bootstrap import bootstrap_intervals
from analysis.methods.agreement.counts import (
    MultiRaterAgreement,
    PercentAgreement,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    gwet_ac1,
    gwet_ac1_from_counts,
    percent_agreement,
)
from analysis.methods.agreement.frames import (
    EncodedFrame,
    FrameError,
    encode_frame,
    item_category_counts,
    item_category_counts_sparse,
    reliability_matrix,
    within_item_pairs,
)
from analysis.methods.agreement.kappa import (
    CohenKappa,
    PairwiseKappa,
    cohen_kappa,
    pairwise_cohen_kappa,
    pairwise_kappa_table,
    quadratic_weighted_kappa,
)
from analysis.methods.agreement.report import AgreementReport, agreement_report
from analysis.methods.agreement.sets import jaccard_distance, masi_distance
from analysis.methods.agreement.votes import (
    HighConfidence,
    PositiveVotes,
    high_confidence_share,
    positive_votes,
)

__all__ = [
    "AgreementReport",
    "CohenKappa",
    "EncodedFrame",
    "FrameError",
    "HighConfidence",
    "KrippendorffAlpha",
    "MultiRaterAgreement",
    "PairwiseKappa",
    "PercentAgreement",
    "PositiveVotes",
    "agreement_report",
    "bootstrap_intervals",
    "cohen_kappa",
    "encode_frame",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "gwet_ac1",
    "gwet_ac1_from_counts",
    "high_confidence_share",
    "item_category_counts",
    "item_category_counts_sparse",
    "jaccard_distance",
    "krippendorff_alpha",
    "masi_distance",
    "pairwise_cohen_kappa",
    "pairwise_kappa_table",
    "percent_agreement",
    "positive_votes",
    "quadratic_weighted_kappa",
    "reliability_matrix",
    "within_item_pairs",
]
