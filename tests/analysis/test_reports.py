"""Reports: parameter checking and the agreement report on a simulated crowd."""

import numpy as np
import pandas as pd
import pytest

from analysis.reports import ParamError, ReportInput, UnknownReport, get_report


def crowd(n_items=120, n_good=6, n_spam=3, seed=1):
    """Good workers answer the true label 85% of the time; spammers always say 'a1'."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(["a1", "a2", "equal"], size=n_items, p=[0.45, 0.45, 0.1])
    rows = []
    for i in range(n_items):
        for w in range(n_good):
            label = truth[i] if rng.random() < 0.85 else rng.choice(["a1", "a2", "equal"])
            rows.append((f"p{i}", f"good{w}", label, 20 + rng.random() * 20))
        for w in range(n_spam):
            rows.append((f"p{i}", f"spam{w}", "a1", 2.0))
    frame = pd.DataFrame(rows, columns=["item", "worker", "label", "seconds"])
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


def test_unknown_kind_and_bad_params_are_named():
    with pytest.raises(UnknownReport, match="unknown analysis kind 'x'; known kinds: agreement"):
        get_report("x")
    report = get_report("agreement")
    with pytest.raises(ParamError, match="parameter 'n_boot': must be at least 0"):
        report.clean_params({"n_boot": -1})
    with pytest.raises(ParamError, match="parameter 'level': must be one of"):
        report.clean_params({"level": "fuzzy"})
    with pytest.raises(ParamError, match="parameter 'nboot': not a parameter"):
        report.clean_params({"nboot": 3})
    with pytest.raises(ParamError, match="parameter 'mace_em': must be bool"):
        report.clean_params({"mace_em": "maybe"})
    assert report.clean_params({"n_boot": "50", "mace_em": "true"})["n_boot"] == 50


def test_agreement_report_finds_the_spammers():
    frame = crowd()
    items = pd.DataFrame({"item": sorted(frame["item"].unique())})
    data = ReportInput(frame=frame, items=items, task_type="pairwise", redundancy=9)
    stages = []
    params = get_report("agreement").clean_params({"n_boot": 50, "seed": 3})
    result = get_report("agreement").run(data, params, lambda f, s: stages.append((f, s)))
    assert [f for f, _ in stages] == sorted(f for f, _ in stages)
    figures = result["figures"]
    assert figures["n_annotations"] == len(frame) and figures["n_workers"] == 9
    low, high = figures["bootstrap"]["intervals"]["krippendorff_alpha"]
    assert low <= figures["krippendorff_alpha"] <= high
    workers = {w["worker"]: w for w in result["workers"]}
    ranked = [w["worker"] for w in result["workers"]]
    assert set(ranked[-3:]) == {"spam0", "spam1", "spam2"}
    assert all("low competence" in workers[f"spam{i}"]["flags"] for i in range(3))
    assert all("one label" in workers[f"spam{i}"]["flags"] and "fast" in workers[f"spam{i}"]["flags"] for i in range(3))
    assert all(not workers[f"good{i}"]["flags"] for i in range(6))
    assert all(workers[f"good{i}"]["agreement_with_mace"] > 0.75 for i in range(6))
    curve = result["curve"]
    assert curve[-1]["annotations"] == len(frame) and len(curve) == 12
    assert curve[-1]["krippendorff_alpha"] == pytest.approx(figures["krippendorff_alpha"], abs=1e-6)
    votes = result["label_votes"]["a1"]["9"]
    assert sum(votes) == 120 and votes[:3] == [0, 0, 0]  # three spammers vote a1 on every item


def test_empty_frame_gives_an_empty_result():
    data = ReportInput(frame=pd.DataFrame(columns=["item", "worker", "label"]),
                       items=pd.DataFrame(columns=["item"]), task_type="pairwise", redundancy=3)
    assert get_report("agreement").run(data, get_report("agreement").clean_params({}), lambda f, s: None)["empty"]
