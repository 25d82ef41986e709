"""Every recruiting provider answers the engine's questions the same way: a worker who arrived by
the project's study link goes back to the panel when done or screened out, carrying the panel's
own worker id; anyone else stays; the engine stops handing items to a worker the provider says
left, and tells the provider of a screen-out. Run over Prolific, the custom link and a panel
written only in the tests (``tests/recruiting/fake_panel.py``)."""

from types import SimpleNamespace

import pytest
from django.utils import timezone

from annotation.models import Standing
from annotation.providers import provider_of
from annotation.selectors.annotator import MARKETPLACE_PROJECT
from annotation.selectors.panel_exits import arrival_params, completion_exit, screened_out_exit
from annotation.services import assignment_next
from recruiting.models import ProlificStudy, ProlificSubmission
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.recruiting.fake_panel import RETURN, fake_panel  # noqa: F401

pytestmark = pytest.mark.django_db

# (panel, project settings, the parameter the worker id arrives in, where a finished worker goes)
PANELS = {
    "prolific": ({}, "PROLIFIC_PID", "https://app.prolific.com/submissions/complete?cc=DONE1"),
    "custom": ({"worker_param": "uid", "custom_source": "lab", "completion_url": "https://lab.example.org/done?c={code}"},
               "uid", "https://lab.example.org/done?c=DONE1"),
    "fakepanel": ({}, "fake_uid", f"{RETURN}?uid=W%201&code=DONE1"),
}


@pytest.fixture(params=sorted(PANELS))
def panel(request, fake_panel):  # noqa: F811
    return request.param


def project_on(panel):
    settings, _, _ = PANELS[panel]
    return ProjectFactory(panel=panel, completion_code="DONE1", **settings)


def test_a_panel_arrival_goes_back_to_its_panel_when_done(panel):
    project = project_on(panel)
    _, param, done = PANELS[panel]
    session = {MARKETPLACE_PROJECT: project.slug, "marketplace": {param: "W 1"}}
    way_out = completion_exit(project=project, params=arrival_params(session=session, project=project))
    assert way_out is not None and way_out.url == done


def test_anyone_else_stays_on_the_platform(panel):
    project = project_on(panel)
    assert arrival_params(session={}, project=project) is None
    assert completion_exit(project=project, params=None) is None
    policy = SimpleNamespace(screened_out_url="", screened_out_code="OUT1")
    assert screened_out_exit(project=project, policy=policy, params=None) is None


def test_a_screened_out_arrival_goes_back_with_the_screen_out_code(panel):
    project = project_on(panel)
    _, param, _ = PANELS[panel]
    policy = SimpleNamespace(screened_out_url="https://lab.example.org/out?c={code}" if panel == "custom" else "",
                             screened_out_code="OUT1")
    way_out = screened_out_exit(project=project, policy=policy, params={param: "W 1"})
    assert way_out is not None and "OUT1" in way_out.url


def test_a_worker_who_left_the_study_gets_no_item(panel, fake_panel):  # noqa: F811
    project = project_on(panel)
    ItemFactory.create_batch(2, project=project)
    worker = UserFactory()
    assert assignment_next(project=project, worker=worker).assignment is not None
    if panel == "custom":
        assert provider_of(project).may_take_items(project=project, worker=worker)
        return  # a custom link has no study to leave
    if panel == "prolific":
        study = ProlificStudy.objects.create(project=project, study_id="study-1")
        ProlificSubmission.objects.create(study=study, project=project, worker=worker, submission_id="S1",
                                          participant_id="P1", status="RETURNED", seen_at=timezone.now())
    else:
        fake_panel.left.add(worker.pk)
    result = assignment_next(project=project, worker=worker)
    assert result.assignment is None and result.reason == "left_study"


def test_the_engine_tells_the_provider_of_a_screen_out(fake_panel):  # noqa: F811
    from quality.services.check_serving import _standing_move

    project, worker = ProjectFactory(panel="fakepanel"), UserFactory()
    _standing_move(project=project, worker=worker, state=Standing.SCREENED_OUT, reason="", now=timezone.now())
    assert fake_panel.screened_out == [(project.pk, worker.pk)]
