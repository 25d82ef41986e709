"""The agreement report keeps the posterior of each item's MACE label, for the items under its
bar only, which the adjudication queue reads as "low MACE posterior"."""

import numpy as np
import pandas as pd
import pytest

from analysis.reports import ReportInput, get_report
from analysis.reports.agreement import (
    POSTERIOR_KEPT_BELOW,
    binary_questions,
    label_posteriors,
    run_mace,
)
from tests.analysis.test_reports import crowd


def test_label_posteriors_are_the_largest_dense_posterior_of_each_item():
    frame = crowd(n_items=60, seed=4)
    mace = run_mace(frame[["item", "worker", "label"]], restarts=3, iterations=30, seed=1)
    sparse = label_posteriors(mace)
    dense = mace.posteriors.max(axis=1)
    assert np.allclose(sparse.to_numpy(), dense.reindex(sparse.index).to_numpy())


def test_the_result_keeps_only_items_under_the_bar():
    frame = crowd(n_items=80, seed=2)
    # Two items the good workers split evenly: MACE cannot be sure of either.
    rows = [(f"split{i}", f"good{w}", "a1" if w % 2 else "a2", 20.0) for i in range(2) for w in range(6)]
    frame = pd.concat([frame, pd.DataFrame(rows, columns=frame.columns)], ignore_index=True)
    items = pd.DataFrame({"item": sorted(frame["item"].unique())})
    report = get_report("agreement")
    params = report.clean_params({"n_boot": 0, "mace_restarts": 3, "seed": 1})
    result = report.run(ReportInput(frame=frame, items=items, task_type="pairwise", redundancy=9), params, lambda *a: None)
    kept = result["posterior"]
    assert kept["below"] == POSTERIOR_KEPT_BELOW
    assert {"split0", "split1"} <= set(kept["items"])
    assert all(0 <= p < POSTERIOR_KEPT_BELOW for p in kept["items"].values())
    assert len(kept["items"]) < len(items) / 2  # confident items take no room


def test_a_set_valued_item_gets_the_lowest_posterior_of_its_options():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(30):
        for w in range(4):
            rows += [(f"s{i}", f"w{w}", "o1", 1), (f"s{i}", f"w{w}", "o2", int(rng.random() < 0.1))]
    rows += [("torn", f"w{w}", "o1", w % 2) for w in range(4)] + [("torn", f"w{w}", "o2", 0) for w in range(4)]
    frame = pd.DataFrame(rows, columns=["item", "worker", "option", "label"]).assign(seconds=5.0)
    items = pd.DataFrame({"item": frame["item"].unique()})
    report = get_report("agreement")
    result = report.run(ReportInput(frame=frame, items=items, task_type="sets", redundancy=4, level="set"),
                        report.clean_params({"n_boot": 0, "mace_restarts": 3}), lambda *a: None)
    kept = result["posterior"]["items"]
    assert "torn" in kept and all(" · " not in item for item in kept)
    # The same MACE run over the binary questions: the item's value is its least certain option's.
    questions = binary_questions(frame)
    mace = run_mace(questions[["item", "worker", "label"]], em=False, iterations=50, restarts=3, seed=0)
    per_option = label_posteriors(mace)
    assert kept["torn"] == pytest.approx(min(per_option["torn · o1"], per_option["torn · o2"]), abs=5e-4)
