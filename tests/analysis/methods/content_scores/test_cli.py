"""The command line: one JSON object per response, and one-line errors with file, line and column."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.methods.content_scores.cli import main

REFERENCES = 'prompt_id,reference_id,text\np1,z,"The cat sat on the mat."\np1,a,a dog sat\np2,c,hello world\n'
RESPONSES = 'response_id,prompt_id,text,speaker\n7,p1,"the cat,\nthe cat",s1\n3,p1,dog sat on a log,s2\n1,p2,,s3\n'


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    references, responses = tmp_path / "references.csv", tmp_path / "responses.csv"
    references.write_text(REFERENCES)
    responses.write_text(RESPONSES)
    return references, responses


def test_prints_one_json_object_per_response_in_file_order(files, capsys):
    assert main([str(files[0]), str(files[1]), "--references", "2"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["response_id"] for line in lines] == ["7", "3", "1"]
    assert all(list(line) == ["response_id", "base", "new", "cva"] for line in lines)
    assert lines[0]["base"] == pytest.approx(3 / 6)  # first reference: "z", in file order
    assert lines[1]["new"] == pytest.approx((2 + 3) / (5 + 3))
    assert lines[2] == {"response_id": "1", "base": 0.0, "new": 0.0, "cva": 0.0}
    assert main([str(files[0]), str(files[1]), "--references", "1"]) == 0
    first_only = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert first_only[1]["new"] == pytest.approx(2 / 5)


def test_stem_and_stopword_options(files, capsys):
    assert main([str(files[0]), str(files[1]), "--stopwords"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # Without "the" and "on", the first reference is cat sat mat: r7 holds cat.
    assert lines[0]["base"] == pytest.approx(1 / 3)


@pytest.mark.integration
def test_runs_as_a_module(files):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "analysis.methods.content_scores",
            str(files[0]),
            str(files[1]),
            "--stem",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[4],
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 3


def error_of(capsys, *argv: str) -> str:
    assert main(list(argv)) == 2
    message = capsys.readouterr().err
    assert message.count("\n") == 1
    return message


def test_a_response_whose_prompt_has_no_reference(files, capsys):
    files[1].write_text(RESPONSES + "9,p3,text,s4\n")
    message = error_of(capsys, str(files[0]), str(files[1]))
    # Line 6: the header, a record over two lines, two more records.
    assert f"{files[1]}: line 6, column 'prompt_id': prompt 'p3' has no reference" in message


def test_a_missing_column_names_the_file_and_header(files, capsys):
    files[0].write_text("prompt_id,text\np1,x\n")
    message = error_of(capsys, str(files[0]), str(files[1]))
    assert f"{files[0]}: line 1: missing column(s) 'reference_id'" in message


def test_an_empty_id_and_a_repeated_id(files, capsys):
    files[1].write_text("response_id,prompt_id,text\n1,p1,x\n,p1,y\n")
    assert f"{files[1]}: line 3, column 'response_id': empty" in error_of(
        capsys, str(files[0]), str(files[1])
    )
    files[1].write_text("response_id,prompt_id,text\n1,p1,x\n1,p1,y\n")
    assert f"{files[1]}: line 3, column 'response_id'" in error_of(
        capsys, str(files[0]), str(files[1])
    )


def test_unreadable_input(files, capsys, tmp_path):
    assert "no such file" in error_of(capsys, str(tmp_path / "absent.csv"), str(files[1]))
    (tmp_path / "empty.csv").write_text("")
    assert "empty file" in error_of(capsys, str(files[0]), str(tmp_path / "empty.csv"))


def test_references_must_be_positive(files, capsys):
    with pytest.raises(SystemExit) as exited:
        main([str(files[0]), str(files[1]), "--references", "0"])
    assert exited.value.code == 2
