"""The command that writes comprehension questions: a seeded sample of the speeches (the paper's
40 read speeches), the same for the same seed, a subset of the whole build."""

import json
from pathlib import Path

import pytest

from task_types.comprehension.cli import main

SPEECHES = [{"id": f"s{n:02d}", "motion_id": "m1", "motion": "M", "speaker": "x", "stance": "pro",
             "transcript": f"Speech {n}."} for n in range(12)]
TITLES = [{"id": "a", "motion_id": "m1", "stance": "pro", "title": "A"}]


def build(tmp_path, capsys, *extra):
    (tmp_path / "speeches.json").write_text(json.dumps(SPEECHES))
    (tmp_path / "titles.json").write_text(json.dumps(TITLES))
    assert main(["corpus", str(tmp_path / "speeches.json"), str(tmp_path / "titles.json"), *extra]) == 0
    return [json.loads(line)["id"] for line in capsys.readouterr().out.splitlines()]


def test_a_seeded_sample_of_the_speeches(tmp_path, capsys):
    everything = build(tmp_path, capsys)
    sample = build(tmp_path, capsys, "--sample", "5", "--seed", "3")
    assert len(everything) == 12 and len(sample) == 5 and set(sample) < set(everything)
    assert sample == sorted(sample)  # in id order, whatever order they were drawn in
    assert build(tmp_path, capsys, "--sample", "5", "--seed", "3") == sample
    others = [build(tmp_path, capsys, "--sample", "5", "--seed", str(seed)) for seed in range(4, 8)]
    assert any(o != sample for o in others)
    # A sample as large as the build keeps every speech.
    assert build(tmp_path, capsys, "--sample", "50", "--seed", "3") == everything


def test_a_sample_of_no_speech_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit, match="--sample"):
        build(tmp_path, capsys, "--sample", "0")


@pytest.mark.shared_data
def test_the_papers_forty_read_speeches_from_the_ibm_release(shared_data, capsys):
    assert main(["ibm", str(shared_data / "ibm_recorded_debating_v4"), "--sample", "40", "--seed", "2018"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(records) == 40 and len({r["id"] for r in records}) == 40
    pairs, motions = sum(len(r["titles"]) for r in records), len({r["motion_id"] for r in records})
    page = " ".join((Path(__file__).parents[3] / "docs/task-types/comprehension.md").read_text().split())
    assert f"keeps 40, with {pairs} (speech, title) pairs over {motions} motions" in page
