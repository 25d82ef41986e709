"""What Habernal & Gurevych (ACL 2016) published about UKPConvArg1, as data: the corpus sizes,
Table 1 of the paper, and the layout of the released CSV folders.

The gold page and ``reproduce_ukpconvarg`` show these figures beside a project's own, labelled
"paper", only for a project that reproduces the corpus (its ``reference_corpus`` option).
"""

from __future__ import annotations

from typing import Any

# Table 1 of the paper, "values averaged over all 32 topics", as printed (one decimal where the
# paper gives one). Keys: our scenario and strategy names and the statistics' field names
# (``analysis.methods.preference_graph.stats``). The paper's "All pairs" scenario is ours with
# equal pairs merged, its "No equivalency pairs" ours without equal pairs; its "Pairs sampled"
# before the first cycle is ``pairs_before_first_cycle``, after all pairs ``pairs_kept``. The paper
# reports no largest merged node.
_TABLE1_COLUMNS = ("removed_apriori", "first_cycle_edges", "first_cycle_nodes", "pairs_before_first_cycle",
                   "first_cycle_length", "transitivity_mean", "transitivity_max", "final_edges", "final_nodes",
                   "pairs_kept", "pairs_ignored")
_TABLE1_PRINTED = {
    ("equal merged", "random"): (26, 32, 20, 44, 1.8, 6.4, 14.5, 105, 16, 339, 162),
    ("equal merged", "ascending"): (26, 16, 16, 26, 2.0, 5.9, 13.2, 81, 14, 294, 208),
    ("equal merged", "descending"): (26, 86, 25, 132, 1.5, 6.8, 15.5, 114, 16, 369, 132),
    ("no equal", "random"): (129, 84, 32, 84, 4.2, 11.1, 24.4, 357, 33, 356, 42),
    ("no equal", "ascending"): (129, 37, 28, 37, 3.9, 11.3, 25.6, 339, 33, 339, 60),
    ("no equal", "descending"): (129, 199, 33, 199, 3.4, 10.8, 24.0, 365, 33, 364, 35),
}
PAPER_TABLE1: list[dict[str, Any]] = [
    {"scenario": scenario, "strategy": strategy, **dict(zip(_TABLE1_COLUMNS, values, strict=True))}
    for (scenario, strategy), values in _TABLE1_PRINTED.items()
]
# "All annotated pairs" per topic, the same in every configuration.
PAPER_PAIRS_PER_TOPIC = 529

# The released corpus's CSV folders: one tab-separated file per topic, named after the topic.
STRICT_FOLDER = "UKPConvArg1Strict-CSV"
RANKING_FOLDER = "UKPConvArg1-Ranking-CSV"
STRICT_HEADER = "#id\tlabel\ta1\ta2"
RANKING_HEADER = "#id\trank\targument"

PAPER = {"all": 16081, "strict": 11650, "rank": 1052}
# "the obtained score reached 0.935 accuracy": the best-ranked worker of each pair (by MACE)
# against the estimated gold labels, measured on the output of the pilot study, not on the
# released corpus (section 3.3 of the paper).
PAPER_BEST_WORKER_ACCURACY = 0.935
# Published corpora a project can reproduce. A project names the one it reproduces in its
# ``reference_corpus`` option, and the gold page shows that corpus's figures beside the project's
# own, and nowhere else.
REFERENCES: dict[str, dict[str, Any]] = {
    "ukpconvarg1": {
        "name": "UKPConvArg1 (Habernal & Gurevych, ACL 2016)",
        "pairs": 16927,
        **PAPER,
        "best_worker_accuracy": PAPER_BEST_WORKER_ACCURACY,
        "best_worker_source": "pilot study",
        "table1": PAPER_TABLE1,
        # The release names a file after its topic, except where its folders spell one topic
        # three ways (the crowd data's file name is the topic id).
        "file_names": {
            STRICT_FOLDER: {"personal-pursuit-or-advancing-the-common-good-_advancing-the-comnong-good":
                            "personal-pursuit-or-advancing-the-common-good-_advancing-the-commond-good"},
            RANKING_FOLDER: {"personal-pursuit-or-advancing-the-common-good-_advancing-the-comnong-good":
                             "personal-pursuit-or-advancing-the-common-good-_advancing-the-common-good"},
        },
    },
}
