"""Long commands say what they do as they go: the stage, how far, how fast."""

from __future__ import annotations

import gzip
import io
import re

import pytest
from django.core.management import call_command

from annotation import importers
from annotation.management.progress import ProgressLog
from annotation.services import crowd_results

pytestmark = pytest.mark.django_db


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_when_a_stage_begins_then_every_few_seconds_and_at_its_end():
    lines: list[str] = []
    clock = Clock()
    log = ProgressLog(lines.append, every=2.0, clock=clock)
    clock.now += 1.0
    log(0.0, "building items: 50 named in the file")
    clock.now += 1.0
    log(0.1, "writing annotations: 1,000 of 4,000")  # a new stage, begun at the last report
    clock.now += 1.0
    log(0.2, "writing annotations: 2,000 of 4,000")  # within two seconds of the last line: quiet
    clock.now += 1.5
    log(0.3, "writing annotations: 3,000 of 4,000")
    clock.now += 0.5
    log(0.4, "writing annotations: 4,000 of 4,000")  # the end of the stage is always shown
    log.note("running the pipeline")
    assert lines == [
        "    1.0 s  building items: 50 named in the file",
        "    2.0 s  writing annotations: 1,000 of 4,000 (1,000/s)",
        "    4.5 s  writing annotations: 3,000 of 4,000 (857/s)",
        "    5.0 s  writing annotations: 4,000 of 4,000 (1,000/s)",
        "    5.0 s  running the pipeline",
    ]


ARGUMENTS = "arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n" + "".join(
    f"a{i}\tt1\tUniforms?\tGood\tx\tArgument number {i} about uniforms.\n" for i in range(4))
LABELS = "topic\tpair_id\targ1\targ2\tworker\tlabel\treason\n" + "".join(
    f"t1\ta{i}_a{j}\ta{i}\ta{j}\tw{w}\ta1\treason {w} {i} {j}\n" for i in range(4) for j in range(i + 1, 4) for w in range(3))


def _stages(text: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^ +\d+\.\d s  (.+?)(?: \([\d,]+/s\))?$", text, flags=re.M)]


def test_import_crowd_prints_its_stages(tmp_path, monkeypatch):
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import
    from tests.factories import ProjectFactory

    monkeypatch.setattr(importers, "PROGRESS_EVERY", 4)
    monkeypatch.setattr(crowd_results, "WRITE_CHUNK", 5)
    arguments_import(rows=parse_arguments(ARGUMENTS.encode()))
    project = ProjectFactory()
    (tmp_path / "labels.tsv").write_text(LABELS)
    out = io.StringIO()
    call_command("import_crowd", project.slug, str(tmp_path / "labels.tsv"), stdout=out)
    stages = _stages(out.getvalue())
    assert stages[0] == "checking line 5 of 20" and "writing annotations: 5 of 18" in stages
    assert [s for s in stages if not s.startswith(("checking", "writing"))] == [
        "building items: 6 named in the file", "creating worker accounts: 3 workers in the file"]
    assert stages[-1] == "writing annotations: 18 of 18"
    assert out.getvalue().rstrip().endswith("workers 3 new, 0 known")


def test_reproduce_ukpconvarg_prints_its_stages(tmp_path):
    (tmp_path / "arguments.tsv").write_text(ARGUMENTS)
    (tmp_path / "assignments.tsv.gz").write_bytes(gzip.compress(LABELS.encode()))
    out = io.StringIO()
    call_command("reproduce_ukpconvarg", str(tmp_path), "--project", "mini", "--param", "mace_restarts=2",
                 "--param", "mace_iterations=20", stdout=out)
    stages = _stages(out.getvalue())
    assert stages[0] == f"importing the arguments of {tmp_path / 'arguments.tsv'}"
    assert stages[1] == f"importing the crowd labels of {tmp_path / 'assignments.tsv.gz'}"
    assert "writing annotations: 18 of 18" in stages
    assert stages[-1] == "running the gold pipeline (MACE, transitivity filter, PageRank)"
