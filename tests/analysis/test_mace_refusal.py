"""A report whose MACE would need more memory than allowed fails as a run, with the sizes and
what to do, instead of taking the worker down; with the memory, the same run goes through."""

import os

import pytest

from analysis.models import AnalysisRun
from analysis.services import analysis_run_create, analysis_run_restart

pytestmark = pytest.mark.django_db
Status = AnalysisRun.Status
KINDS = [("agreement", {"n_boot": 0}), ("pairwise_gold", {"mace_iterations": 5, "mace_restarts": 10})]


def run_now(capture, **create):
    with capture(execute=True):
        run = analysis_run_create(**create)
    run.refresh_from_db()
    return run


@pytest.mark.parametrize(("kind", "params"), KINDS)
def test_a_refused_mace_fails_the_run_with_a_clear_message(
    annotated_project, monkeypatch, settings, django_capture_on_commit_callbacks, kind, params
):
    settings.MACE_MAX_MEMORY_BYTES = 4096
    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # two blocks of restarts side by side
    run = run_now(django_capture_on_commit_callbacks, project=annotated_project, kind=kind, params=params)
    assert run.status == Status.FAILED and run.result is None
    assert "MACE was not run: MACE on 18 annotations (6 items, 4 workers, 3 labels) would need about" in run.error
    assert "more than the 4.0 KiB allowed. To go ahead, set mace_restarts to 4 or fewer" in run.error
    assert "raise the platform's limit MACE_MAX_MEMORY_MB (now 0 MB)" in run.error
    assert run.error.endswith("run python -m analysis.methods.mace with a higher --max-memory.")
    # One block already: fewer restarts would not help, so the message does not offer it.
    one_block = run_now(django_capture_on_commit_callbacks, project=annotated_project, kind=kind,
                        params={**params, "mace_restarts": 4})
    assert one_block.status == Status.FAILED and "mace_restarts" not in one_block.error
    assert "export the annotations and run python -m analysis.methods.mace" in one_block.error
    # Memory allowing, the same run completes.
    settings.MACE_MAX_MEMORY_BYTES = 1 << 30
    with django_capture_on_commit_callbacks(execute=True):
        analysis_run_restart(run=run)
    run.refresh_from_db()
    assert run.status == Status.DONE and run.error == ""
