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


def scores(kind: str):
    """Ratings 1-4 as text (as form fields send them), three raters close to a true score."""
    rng = np.random.default_rng(5)
    rows = []
    for i in range(40):
        truth = rng.integers(1, 5)
        for w in range(3):
            value = int(np.clip(truth + rng.choice([-1, 0, 0, 1]), 1, 4))
            rows.append((f"r{i}", f"w{w}", str(value) if kind != "ordinal" else ["low", "fair", "good", "top"][value - 1], 10.0))
    return pd.DataFrame(rows, columns=["item", "worker", "label", "seconds"])


@pytest.mark.parametrize(("level", "categories"), [("ordinal", ("low", "fair", "good", "top")),
                                                   ("interval", ("1", "2", "3", "4"))])
def test_agreement_report_on_ordered_levels(level, categories):
    frame = scores(level)
    data = ReportInput(frame=frame, items=pd.DataFrame({"item": frame["item"].unique()}), task_type="scores",
                       redundancy=3, level=level, categories=categories)
    result = get_report("agreement").run(data, get_report("agreement").clean_params({"n_boot": 20}), lambda *a: None)
    figures = result["figures"]
    assert figures["krippendorff_alpha_level"] == level and figures["quadratic_weighted_kappa"] is not None
    assert result["curve"][-1]["krippendorff_alpha"] == pytest.approx(figures["krippendorff_alpha"], abs=1e-6)
    # Ordered distances give partial credit, so alpha beats the nominal reading of the same labels.
    nominal = get_report("agreement").run(data, get_report("agreement").clean_params({"n_boot": 0, "level": "nominal"}),
                                          lambda *a: None)
    assert figures["krippendorff_alpha"] > nominal["figures"]["krippendorff_alpha"]


def test_set_valued_answers_count_whole_answers_and_ids_never_collide():
    # Two items whose "item · option" read the same: "a · b" with option "c", and "a" with "b · c".
    rows = []
    for w, (first, second) in enumerate([(1, 0), (1, 0), (0, 1)]):
        rows += [("a · b", f"w{w}", "c", first), ("a", f"w{w}", "b · c", second), ("a", f"w{w}", "d", 0)]
    for i in range(12):  # a worker who says None to everything
        rows += [(f"x{i}", "none-sayer", "o1", 0), (f"x{i}", "none-sayer", "o2", 0)]
    frame = pd.DataFrame(rows, columns=["item", "worker", "option", "label"]).assign(seconds=5.0)
    items = pd.DataFrame({"item": frame["item"].unique(), "options": [{"c": "C"}, {"b · c": "BC", "d": "D"}]
                          + [{"o1": "O1", "o2": "O2"}] * 12})
    data = ReportInput(frame=frame, items=items, task_type="sets", redundancy=3, level="set")
    result = get_report("agreement").run(data, get_report("agreement").clean_params({"n_boot": 0}), lambda *a: None)
    assert result["figures"]["n_items"] == 3 + 24  # yes/no questions
    assert result["sets"]["n_answers"] == 6 + 12
    workers = {w["worker"]: w for w in result["workers"]}
    assert workers["w0"]["annotations"] == 2 and workers["none-sayer"]["annotations"] == 12
    assert "one label" in workers["none-sayer"]["flags"] and "one label" not in workers["w0"]["flags"]
    texts = {o["option"]: o["text"] for o in result["sets"]["options"]}
    assert texts["b · c"] == "BC" and texts["o1"] == "O1"


def test_agreement_report_gives_each_worker_a_competence_interval():
    frame = crowd(n_items=60)
    items = pd.DataFrame({"item": sorted(frame["item"].unique())})
    data = ReportInput(frame=frame, items=items, task_type="pairwise", redundancy=9)
    report = get_report("agreement")
    result = report.run(data, report.clean_params({"n_boot": 0, "competence_replicates": 20, "seed": 1}),
                        lambda f, s: None)
    assert result["competence_replicates"] == 20 and result["competence_level"] == 0.95
    workers = {w["worker"]: w for w in result["workers"]}
    for row in workers.values():
        assert row["competence_low"] - 0.05 <= row["competence"] <= row["competence_high"] + 0.05
    assert max(workers[f"spam{i}"]["competence_high"] for i in range(3)) < min(
        workers[f"good{i}"]["competence_low"] for i in range(6))
    none = report.run(data, report.clean_params({"n_boot": 0, "competence_replicates": 0}), lambda f, s: None)
    assert none["competence_replicates"] == 0
    assert all(w["competence_low"] is None and w["competence_high"] is None for w in none["workers"])
