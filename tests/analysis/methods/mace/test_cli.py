"""The original MACE command line: its options, its files, its errors."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.methods.mace.cli import format_double, main

PROJECT = Path(__file__).resolve().parents[4]


def test_format_double_writes_what_java_writes():
    cases = {
        0.0: "0.0",
        1.0: "1.0",
        -2.5: "-2.5",
        100.0: "100.0",
        0.001: "0.001",
        0.000999: "9.99E-4",
        5.657170773284981e-05: "5.657170773284981E-5",
        0.0027237895900081095: "0.0027237895900081095",
        123456.789: "123456.789",
        1e7: "1.0E7",
        12345678.9: "1.23456789E7",
        1e21: "1.0E21",
        np.float64(0.25): "0.25",
    }
    assert {value: format_double(value) for value in cases} == cases


CSV = "a,b,,a\n\na,a,a,\n,,,\nb,b,a,b\nb,,b,b\na,a,a,a\n"


def test_cli_writes_the_original_files(tmp_path, capsys):
    source = tmp_path / "votes.csv"
    source.write_text(CSV)
    prefix = tmp_path / "out"
    code = main(
        [
            str(source),
            "--em",
            "--restarts",
            "3",
            "--iterations",
            "20",
            "--entropies",
            "--seed",
            "1",
            "--prefix",
            str(prefix),
        ]
    )
    assert code == 0
    predictions = (tmp_path / "out.prediction").read_text()
    assert predictions.endswith("\n")
    lines = predictions[:-1].split("\n")
    # A blank line and a line nobody labelled get no label; the rest get their majority here.
    assert lines == ["a", "", "a", "", "b", "b", "a"]
    competence = (tmp_path / "out.competence").read_text()
    assert competence.endswith("\n") and competence.count("\n") == 1
    values = competence[:-1].split("\t")
    assert len(values) == 4 and all(0.0 < float(v) < 1.0 for v in values)
    entropies = (tmp_path / "out.entropies").read_text()[:-1].split("\n")
    assert len(entropies) == 7 and entropies[1] == ""
    assert float(entropies[3]) == pytest.approx(math.log(2))  # nobody labelled it: uniform
    java_double = r"^-?\d+\.\d+(E-?\d+)?$"
    assert all(pd.Series([*values, *(e for e in entropies if e)]).str.match(java_double))
    assert "EM" in capsys.readouterr().err


def test_cli_threshold_counts_blank_lines_like_the_original(tmp_path):
    source = tmp_path / "votes.csv"
    source.write_text(CSV)
    main([str(source), "--threshold", "0.5", "--seed", "2", "--prefix", str(tmp_path / "cut")])
    lines = (tmp_path / "cut.prediction").read_text()[:-1].split("\n")
    # 7 lines, int(3.5) = 3: the blank line (certain by construction) and three more are kept.
    assert len(lines) == 7 and sum(1 for line in lines if line) == 3 and lines[1] == ""


def test_cli_controls_and_alpha_after_em_means_variational(tmp_path, capsys):
    source, controls = tmp_path / "votes.csv", tmp_path / "votes.controls"
    source.write_text(CSV)
    controls.write_text("b\n\n\n\n\n\n\n")
    main(
        [
            str(source),
            "--em",
            "--alpha",
            "1.0",
            "--controls",
            str(controls),
            "--seed",
            "3",
            "--prefix",
            str(tmp_path / "c"),
        ]
    )
    assert (tmp_path / "c.prediction").read_text().split("\n")[0] == "b"
    assert "variational Bayes (alpha=1.0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("csv", "controls", "message"),
    [
        ("a,b\na,b,c\n", None, ":2: 3 columns, but line 1 has 2"),
        (",,\n\n", None, "no annotations"),
        ("a,b\nb,a\n", "c\n", "controls:1: label 'c' does not occur"),
        ("a,b\nb,a\n", "\n\na\n", "controls:3: a control beyond the 2 lines"),
        ("a,\xff\n", None, ":1: not UTF-8"),
    ],
)
def test_cli_rejects_bad_files_naming_the_line(tmp_path, capsys, csv, controls, message):
    source = tmp_path / "bad.csv"
    source.write_bytes(csv.encode("latin-1"))
    argv = [str(source), "--prefix", str(tmp_path / "x")]
    if controls is not None:
        (tmp_path / "bad.controls").write_text(controls)
        argv += ["--controls", str(tmp_path / "bad.controls")]
    assert main(argv) == 1
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.prediction").exists()


def test_cli_rejects_bad_options():
    with pytest.raises(SystemExit) as stop:
        main(["votes.csv", "--threshold", "2"])
    assert stop.value.code == 2


@pytest.mark.integration
def test_python_m_runs_the_command_line(tmp_path):
    source = tmp_path / "votes.csv"
    source.write_text(CSV)
    test = tmp_path / "votes.key"
    test.write_text("a\n\na\n\nb\nb\na\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "analysis.methods.mace",
            "--test",
            str(test),
            "--seed",
            "4",
            str(source),
        ],
        cwd=tmp_path,
        env={"PYTHONPATH": str(PROJECT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Coverage: 0.7142857142857143\tAccuracy on test set: 1.0"
    assert (tmp_path / "prediction").exists() and (tmp_path / "competence").exists()


def test_cli_reports_unwritable_outputs_and_mismatched_test_files(tmp_path, capsys):
    source = tmp_path / "votes.csv"
    source.write_text(CSV)
    assert main([str(source), "--prefix", str(tmp_path / "missing" / "out")]) == 1
    assert "cannot write" in capsys.readouterr().err
    short = tmp_path / "votes.key"
    short.write_text("a\nb\n")
    assert main([str(source), "--test", str(short), "--prefix", str(tmp_path / "t")]) == 1
    assert "votes.key: 2 lines, but the input has 7" in capsys.readouterr().err


def test_cli_distribution_writes_every_label_most_likely_first(tmp_path):
    source = tmp_path / "votes.csv"
    source.write_text(CSV)
    code = main([str(source), "--distribution", "--seed", "5", "--threads", "1", "--prefix", str(tmp_path / "d")])
    assert code == 0
    lines = (tmp_path / "d.prediction").read_text()[:-1].split("\n")
    assert len(lines) == 7 and lines[1] == ""  # the blank line stays blank
    for line in [lines[0], lines[2], *lines[3:]]:
        pairs = [entry.split(" ") for entry in line.split("\t")]
        assert sorted(name for name, _ in pairs) == ["a", "b"]
        probabilities = [float(p) for _, p in pairs]
        assert probabilities == sorted(probabilities, reverse=True)
        assert sum(probabilities) == pytest.approx(1.0)
    # Nobody labelled line 4: both labels at 0.5, in label order.
    assert lines[3] == "a 0.5\tb 0.5"
    assert lines[0].startswith("a ") and lines[4].startswith("b ")


@pytest.mark.parametrize(
    ("value", "message"),
    [("lots", "not a size: 'lots'"), ("0", "a size must be positive"), ("-2G", "a size must be positive")],
)
def test_cli_rejects_bad_memory_sizes(value, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["votes.csv", f"--max-memory={value}"])
    assert stop.value.code == 2
    assert f"argument --max-memory: {message}" in capsys.readouterr().err


def test_cli_max_memory_reads_binary_units(tmp_path, capsys):
    source = tmp_path / "votes.csv"
    source.write_text(CSV)
    for size in ("1G", "1GiB", "1gb", "1073741824", "0.5g", "200M", "300000k"):
        assert main([str(source), "--max-memory", size, "--prefix", str(tmp_path / "ok")]) == 0, size
    assert main([str(source), "--max-memory", "1000", "--prefix", str(tmp_path / "no")]) == 1
    error = capsys.readouterr().err
    assert "mace: error: MACE on 17 annotations (7 items, 4 workers, 2 labels) would need about" in error
    assert "more than the 1000 bytes allowed; allow more with max_memory (--max-memory" in error
    assert not (tmp_path / "no.prediction").exists()
