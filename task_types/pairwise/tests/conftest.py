import pytest

from analysis.services import analysis_run_create
from task_types.pairwise.tests.test_report import FAST, build_project


@pytest.fixture
def gold_run(django_capture_on_commit_callbacks):
    """A finished pairwise gold run of the small project of ``test_report``, and the
    quality of each argument that project was built from."""
    project, quality = build_project()
    with django_capture_on_commit_callbacks(execute=True):
        run = analysis_run_create(project=project, kind="pairwise_gold", params=FAST)
    run.refresh_from_db()
    assert run.status == "done", run.error
    return run, quality


@pytest.fixture
def gold(gold_run):
    return gold_run[0]
