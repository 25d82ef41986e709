"""The published figures of the content-accuracy study (ROUGE on spoken responses, poster).

5,934 responses from 1,611 speakers to 24 prompts (one picture narration, three listen-and-
summarise questions per speaker); responses of 72 words on average (σ = 29). Kept here so that
reports lay them beside the project's own figures.
"""

from __future__ import annotations

from typing import Final

# The poster's "Agreement between two expert raters: k = 0.69", which does not name the kappa
# (its table's κ, of the predicted scores, is "weighted quadratic kappa").
EXPERT_KAPPA: Final = 0.69
# ASR word error rate per prompt type.
ASR_WER: Final = {"picture narration": 0.265, "summarisation": 0.294}
# "Content accuracy only" models: score -> (r ASR, κ ASR, r manual, κ manual).
CONTENT_ONLY: Final = {
    "cva": (0.492, 0.340, 0.469, 0.303),
    "base": (0.587, 0.440, 0.632, 0.489),
    "new": (0.655, 0.540, 0.700, 0.590),
}
# Correlation with the human score: score -> (absolute ASR, absolute manual, partial ASR,
# partial manual), partial holding the response length (words) constant.
LENGTH_TABLE: Final = {
    "cva": (0.508, 0.451, 0.428, 0.370),
    "base": (0.553, 0.589, 0.281, 0.284),
    "new": (0.652, 0.673, 0.478, 0.460),
}
