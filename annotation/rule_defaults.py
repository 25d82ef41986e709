"""The settings a new quality rule of each kind starts from: valid for its kind, and the ones the
error rates in the manual and on the rules page were measured with
(``bench/quality/rules_simulation.py``). Plain data, so that the benchmark reads them without
Django."""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, dict[str, Any]] = {
    # A pairwise worker at 70% on gold is blocked in at most 5% of studies; at 75%, in well under 1%.
    "gold_accuracy": {"threshold": 0.7, "min_answers": 5, "share_of_median": 0.25, "confidence": 0.95},
    # More than 10% of answers under a quarter of the project's median time (server time).
    "too_fast": {"threshold": 0.1, "min_answers": 5, "share_of_median": 0.25, "confidence": 0.95},
    # Choosing the option shown first 20 points more often than 1/k is the alternative.
    "position_bias": {"threshold": 0.2, "min_answers": 10, "share_of_median": 0.25, "confidence": 0.95},
    "competence": {"threshold": 0.4, "min_answers": 20, "share_of_median": 0.25, "confidence": 0.95},
    # A browser that says it is automated, on this many answers.
    "automation": {"threshold": 0.0, "min_answers": 3, "share_of_median": 0.25, "confidence": 0.95},
}

# The competence rule reads MACE over everyone's answers: an agreement run is requested after every
# this many answers of a worker to real items (``quality.services.rules.judging``).
RUN_EVERY = 20
