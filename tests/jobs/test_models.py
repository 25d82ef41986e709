"""The job models, as the generic job machinery sees them."""

from jobs.selectors import job_models


def test_the_machinery_reaches_every_job_model_through_its_objects_manager():
    # jobs.services reaches the rows of a job model through _default_manager: a model that
    # declared another manager first would make it see other rows than ``objects`` does.
    models = job_models()
    assert {m._meta.label for m in models} >= {"analysis.AnalysisRun", "annotation.ImportJob"}
    for model in models:
        assert model._default_manager is model.objects
