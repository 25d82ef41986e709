"""The all-figures entry point, the long-frame helpers and the command line."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters

from analysis.methods.agreement import (
    FrameError,
    agreement_report,
    encode_frame,
    fleiss_kappa,
    gwet_ac1,
    item_category_counts,
    krippendorff_alpha,
    pairwise_cohen_kappa,
    percent_agreement,
    within_item_pairs,
)
from analysis.methods.agreement.cli import main

ROOT = Path(__file__).resolve().parents[4]
UKP = Path("ukpconvarg1") / "assignments.tsv.gz"  # under the shared_data fixture
REQUIRED_KEYS = {
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "percent_agreement",
    "gwet_ac1",
    "n_items",
    "n_workers",
    "n_labels",
}


def crowd_frame(
    seed=0, *, n_items=150, n_workers=8, categories=("a1", "a2", "equal")
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(n_items):
        truth = rng.integers(len(categories))
        for worker in rng.choice(n_workers, size=rng.integers(2, 6), replace=False):
            label = truth if rng.random() < 0.7 else rng.integers(len(categories))
            rows.append((f"pair{item}", f"W{worker}", categories[label]))
    return pd.DataFrame(rows, columns=["item", "worker", "label"])


def run_cli(tmp_path, text: str, *args: str, name="data.csv", capsys=None):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code = main([str(path), *args])
    out, err = capsys.readouterr()
    return code, out, err


# The entry point


def test_report_gathers_the_individual_figures():
    frame = crowd_frame()
    report = agreement_report(frame, min_overlap=5)
    assert report.cohen_kappa == pairwise_cohen_kappa(frame, min_overlap=5)
    assert report.fleiss_kappa == fleiss_kappa(frame)
    assert report.gwet_ac1 == gwet_ac1(frame)
    assert report.percent_agreement == percent_agreement(frame)
    assert report.krippendorff_alpha == krippendorff_alpha(frame)
    assert report.quadratic_weighted_kappa is None and report.positive_votes is None
    data = report.to_dict()
    assert REQUIRED_KEYS <= data.keys()
    assert (data["n_items"], data["n_workers"], data["n_labels"]) == (150, 8, 3)
    assert data["n_annotations"] == len(frame)
    json.dumps(data, allow_nan=False)


def test_report_at_ordinal_level_adds_the_quadratic_weighted_kappa():
    frame = crowd_frame(1, categories=(1, 2, 3, 4, 5))
    report = agreement_report(frame, level="ordinal", min_overlap=5)
    assert report.quadratic_weighted_kappa == pairwise_cohen_kappa(
        frame, weights="quadratic", min_overlap=5
    )
    assert report.krippendorff_alpha.level == "ordinal"
    assert "quadratic_weighted_kappa" in report.to_dict()


def test_report_on_set_answers_gives_both_set_distances_and_positive_votes():
    rng = np.random.default_rng(2)
    rows = [
        (item, worker, frozenset(o for o in "xyz" if rng.random() < 0.5))
        for item in range(50)
        for worker in range(3)
    ]
    frame = pd.DataFrame(rows, columns=["item", "worker", "label"])
    report = agreement_report(frame, set_distance="jaccard")
    data = report.to_dict()
    assert data["label_kind"] == "sets" and data["krippendorff_alpha_level"] == "jaccard"
    assert data["krippendorff_alpha"] == data["krippendorff_alpha_jaccard"]
    assert data["krippendorff_alpha_masi"] == pytest.approx(
        krippendorff_alpha(frame, level="masi").value
    )
    assert sum(data["positive_votes"]["3"]) == 50 * 3  # 50 items × 3 options
    with pytest.raises(ValueError, match="no order"):
        agreement_report(frame, level="ordinal")


def test_undefined_figures_become_null():
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "worker": ["a", "b", "a", "b"], "label": ["x"] * 4})
    data = agreement_report(frame).to_dict()
    assert data["fleiss_kappa"] is None and data["cohen_kappa"] is None
    assert data["percent_agreement"] == 1.0


# The long frame


def test_encoding_and_matrices_match_statsmodels_aggregation():
    rng = np.random.default_rng(3)
    ratings = rng.integers(0, 4, size=(40, 5))
    frame = pd.DataFrame(
        [(i, f"r{r}", int(ratings[i, r])) for i in range(40) for r in range(5)],
        columns=["item", "worker", "label"],
    ).sample(frac=1, random_state=1)
    encoded = encode_frame(frame)
    table = item_category_counts(encoded)
    expected, _ = aggregate_raters(ratings)
    np.testing.assert_array_equal(table[np.argsort(np.asarray(encoded.items))], expected)
    first, second = within_item_pairs(encoded)
    assert first.size == 40 * 10
    assert (encoded.item[first] == encoded.item[second]).all()
    assert (encoded.worker[first] < encoded.worker[second]).all()
    assert (
        len({(i, a, b) for i, a, b in zip(encoded.item[first], first, second, strict=True)}) == 400
    )


def test_frame_errors_say_what_and_where():
    with pytest.raises(FrameError, match="label") as missing:
        encode_frame(pd.DataFrame({"item": [1], "worker": ["a"]}))
    assert missing.value.column == "label"
    twice = pd.DataFrame({"item": [1, 2, 1], "worker": ["a", "a", "a"], "label": ["x", "y", "z"]})
    with pytest.raises(FrameError, match="twice") as repeated:
        encode_frame(twice)
    assert repeated.value.row == 2
    mixed = pd.DataFrame({"item": [1, 1], "worker": ["a", "b"], "label": [frozenset({"x"}), "x"]})
    with pytest.raises(FrameError, match="mix"):
        encode_frame(mixed)
    with pytest.raises(FrameError, match="'maybe' is not one of the categories") as unknown:
        encode_frame(
            pd.DataFrame({"item": [1, 2], "worker": ["a", "a"], "label": ["yes", "maybe"]}),
            categories=["yes", "no"],
        )
    assert unknown.value.row == 1
    with pytest.raises(FrameError, match="missing label"):
        encode_frame(pd.DataFrame({"item": [1, 2], "worker": ["a", "a"], "label": [1.0, np.nan]}))


# The command line


def test_cli_prints_one_json_object_with_every_figure(tmp_path, capsys):
    frame = crowd_frame(4)
    text = frame.to_csv(index=False)
    code, out, err = run_cli(tmp_path, text, "--min-overlap", "5", capsys=capsys)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert REQUIRED_KEYS <= data.keys()
    assert data["fleiss_kappa"] == pytest.approx(fleiss_kappa(frame).value)
    assert data["cohen_kappa"] == pytest.approx(pairwise_cohen_kappa(frame, min_overlap=5).value)


def test_cli_bootstrap_is_seedable(tmp_path, capsys):
    text = crowd_frame(5).to_csv(index=False)
    args = ("--bootstrap", "30", "--seed", "4")
    first = json.loads(run_cli(tmp_path, text, *args, capsys=capsys)[1])
    second = json.loads(run_cli(tmp_path, text, *args, capsys=capsys)[1])
    assert first["bootstrap"] == second["bootstrap"]
    assert first["bootstrap"]["n_boot"] == 30 and "fleiss_kappa" in first["bootstrap"]["intervals"]


def test_cli_ordinal_text_labels_with_categories(tmp_path, capsys):
    text = crowd_frame(6).to_csv(index=False)
    code, out, _ = run_cli(
        tmp_path, text, "--level", "ordinal", "--categories", "a1,equal,a2", capsys=capsys
    )
    assert code == 0 and json.loads(out)["quadratic_weighted_kappa_pairs"] >= 0
    code, _, err = run_cli(tmp_path, text, "--level", "ordinal", capsys=capsys)
    assert code == 1 and "categories" in err


def test_cli_reads_pipe_and_json_sets_alike(tmp_path, capsys):
    pipes = "item,worker,label\n1,a,x|y\n1,b,y|x\n2,a,x\n2,b,[]\n3,a,y\n3,b,x|y\n"
    lists = 'item,worker,label\n1,a,"[""x"",""y""]"\n1,b,"[""y"",""x""]"\n2,a,x\n2,b,[]\n3,a,"[""y""]"\n3,b,x|y\n'
    first = json.loads(run_cli(tmp_path, pipes, "--min-overlap", "1", capsys=capsys)[1])
    second = json.loads(run_cli(tmp_path, lists, "--min-overlap", "1", capsys=capsys)[1])
    assert first == second
    assert first["label_kind"] == "sets" and first["n_labels"] == 4  # {x,y}, {x}, {}, {y}
    expected = pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3, 3],
            "worker": list("ababab"),
            "label": [
                frozenset("xy"),
                frozenset("xy"),
                frozenset("x"),
                frozenset(),
                frozenset("y"),
                frozenset("xy"),
            ],
        }
    )
    assert first["krippendorff_alpha_masi"] == pytest.approx(
        krippendorff_alpha(expected, level="masi").value
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("item,worker,lable\n1,a,x\n", "line 1: missing column(s) 'label'"),
        ("item,worker,label\n", "no annotations after the header"),
        ("item,worker,label\n1,a,x\n1,b,y,z\n", "line 3: expected 3 fields like the header, saw 4"),
        (
            'item,worker,label\n1,a,"x\ny"\n1,b,z\n2,a,q,r\n',
            "line 5: expected 3 fields like the header, saw 4",
        ),
        (
            'item,worker,label,reason\n1,a,x,"two\nlines"\n1,b,,ok\n',
            "line 4, column 'label': empty value",
        ),
        ("item,worker,label\n1,a,1\n2,a,2\n1,a,3\n", "line 4: worker 'a' annotated item '1' twice"),
        (
            "item,worker,label\n1,a,1\n1,b,2\n2,a,three\n",
            "line 4, column 'label': 'three' is not a number",
        ),
        (
            'item,worker,label\n1,a,"[""x"","\n1,b,y\n',
            "line 2, column 'label': '[\"x\",' is not a JSON list",
        ),
        ('item,worker,label\n1,a,"x\ny"\n1,b,"y\n', "line 4: a quoted field is never closed"),
    ],
)
def test_cli_bad_input_names_line_and_column(tmp_path, capsys, text, message):
    code, out, err = run_cli(tmp_path, text, "--level", "interval", capsys=capsys)
    assert code == 1 and out == ""
    assert message in err and err.startswith("agreement: error: ")


@pytest.mark.integration
def test_cli_missing_file_and_help(tmp_path, capsys):
    assert main([str(tmp_path / "absent.csv")]) == 1
    assert "no such file" in capsys.readouterr().err
    help_text = subprocess.run(
        [sys.executable, "-m", "analysis.methods.agreement", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "label syntax" in help_text and "a|b" not in help_text and "claim|evidence" in help_text
    assert "--bootstrap" in help_text and "--seed" in help_text


@pytest.mark.shared_data
def test_ukpconvarg1_assignments(shared_data):
    raw = pd.read_csv(shared_data / UKP, sep="\t", usecols=["pair_id", "worker", "label"])
    report = agreement_report(raw.rename(columns={"pair_id": "item"}))
    # The dataset README: 84,445 assignments, 16,927 pairs, 3,815 workers, labels a1/a2/equal.
    assert (report.n_annotations, report.n_items, report.n_workers, report.n_labels) == (
        84445,
        16927,
        3815,
        3,
    )
    assert not report.fleiss_kappa.fixed_ratings  # 190 pairs have four assignments
    assert report.high_confidence.n_items == 16927
    assert 0 < report.fleiss_kappa.value < report.percent_agreement.value < 1
