"""A worker sent to review gets no new items until staff decide, while the project says so
(``QualityPolicy.review_pauses_work``, on by default): the item on their screen may be finished,
the page and the API say why no item comes, and a decision (back to work, or a block) ends the
pause."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Assignment, ItemKind, Purpose, Standing
from annotation.services import annotation_submit, assignment_next
from quality.models import QualityRule, TrainingRound
from quality.services.rules.decisions import rule_decide
from quality.services.standing import standing_set
from quality.services.training import training_round_start
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    project = ProjectFactory(redundancy=1)
    for _ in range(4):
        ItemFactory(project=project)
    return project


def _send_to_review(project, worker):
    rule = QualityRule.objects.create(project=project, kind=QualityRule.Kind.TOO_FAST,
                                      action=QualityRule.Action.REVIEW, threshold=0.2)
    assert rule_decide(rule=rule, project=project, worker=worker, evidence={"share": 0.9}, trigger="test") is not None


def test_review_pauses_serving_by_default_and_the_open_item_may_be_finished(project):
    worker = UserFactory()
    held = assignment_next(project=project, worker=worker).assignment
    _send_to_review(project, worker)
    # The lease is kept: the item on the worker's screen comes back, and its answer is taken.
    again = assignment_next(project=project, worker=worker)
    assert again.assignment == held and again.resumed
    annotation_submit(assignment=held, worker=worker, data=answer(label="a1"))
    paused = assignment_next(project=project, worker=worker)
    assert paused.assignment is None and paused.reason == "review"
    assert Assignment.objects.filter(project=project, worker=worker).count() == 1
    # Staff decide: back to work.
    standing_set(project=project, worker=worker, state=Standing.ACTIVE, actor=UserFactory(role="researcher"))
    assert assignment_next(project=project, worker=worker).assignment is not None


def test_with_the_option_off_a_worker_in_review_keeps_working(project):
    quality_policy(project, review_pauses_work=False)
    worker = UserFactory()
    _send_to_review(project, worker)
    served = assignment_next(project=project, worker=worker)
    assert served.assignment is not None and served.reason == ""


def test_the_page_and_the_api_say_the_work_is_paused(client, project):
    worker = UserFactory()
    client.force_login(worker)
    _send_to_review(project, worker)
    page = client.get(reverse("annotate", args=[project.slug])).content.decode()
    assert 'data-testid="paused-for-review"' in page and 'id="task-form"' not in page
    assert "Paused: the researchers are reviewing your answers" in client.get(reverse("projects")).content.decode()
    api = APIClient()
    api.force_authenticate(worker)
    assert api.post(reverse("api-next", args=[project.slug])).json() == {"assignment": None, "reason": "review"}


def test_the_project_list_says_nothing_of_review_when_the_project_does_not_pause(client, project):
    quality_policy(project, review_pauses_work=False)
    worker = UserFactory()
    client.force_login(worker)
    _send_to_review(project, worker)
    assert "Paused:" not in client.get(reverse("projects")).content.decode()


def test_unblock_on_the_worker_page_ends_the_review(client, project):
    worker = UserFactory()
    _send_to_review(project, worker)
    assert assignment_next(project=project, worker=worker).reason == "review"
    staff = UserFactory(role="admin")
    client.force_login(staff)
    url = reverse("quality-worker-action", args=[project.slug, worker.pk, "unblock"])
    assert client.post(url, {"note": "looked fine"}).status_code == 302
    assert assignment_next(project=project, worker=worker).assignment is not None
    refused = APIClient()
    refused.force_authenticate(staff)
    again = refused.post(reverse("api-worker-action", args=[project.slug, worker.pk, "unblock"]), {}, format="json")
    assert again.status_code == 409 and "neither blocked nor to review" in str(again.json())


def test_a_training_round_staff_send_a_paused_worker_to_still_serves_its_items(project):
    for _ in range(2):
        check_item(project, kind=ItemKind.TRAINING, answer={"label": "a1"})
    worker = UserFactory()
    _send_to_review(project, worker)
    training_round_start(project=project, worker=worker, kind=TrainingRound.Kind.RECALIBRATION,
                         actor=UserFactory(role="admin"))
    served = assignment_next(project=project, worker=worker).assignment
    assert served is not None and served.purpose == Purpose.TRAINING


def test_both_options_are_quality_settings_in_the_api_and_on_by_default(project):
    admin = APIClient()
    admin.force_authenticate(UserFactory(role="admin"))
    url = reverse("api-quality", args=[project.slug])
    settings = admin.get(url).json()["settings"]
    assert settings["review_pauses_work"] is True and settings["blocked_answers_excluded"] is True
    changed = admin.patch(url, {"review_pauses_work": False}, format="json")
    assert changed.status_code == 200 and changed.json()["settings"]["review_pauses_work"] is False
    refused = admin.patch(url, {"blocked_answers_excluded": "perhaps"}, format="json")
    assert refused.status_code == 400 and set(refused.json()) == {"blocked_answers_excluded"}
