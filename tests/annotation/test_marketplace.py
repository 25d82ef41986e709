"""Marketplace arrivals: allowed sources, account names, sessions already open, MTurk previews,
the welcome and consent step, and the way out with the completion code."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from annotation.accounts import (
    AccountError,
    marketplace_identity,
    user_create,
    worker_from_marketplace,
)
from annotation.models import WorkerProfile
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def study():
    project = ProjectFactory(open_to_all=False, external_entry=True, completion_code="C0DE-77",
                             completion_url="https://app.prolific.com/submissions/complete?cc=C0DE-77",
                             consent_text="We record your answers and **nothing else**.", redundancy=1,
                             marketplace_sources="prolific, mturk, panel-x")
    ItemFactory(project=project)
    return project


def test_source_names_are_checked_when_the_admin_saves_them(study):
    study.marketplace_sources = "prolific, Bad Name, a+b"
    with pytest.raises(ValidationError, match="'bad name', 'a\\+b'"):
        study.full_clean()
    study.marketplace_sources = "prolific,  own_panel-2 "
    study.full_clean()
    assert study.allowed_sources == ["prolific", "own_panel-2"]


def test_source_does_not_rename_a_known_marketplace():
    assert marketplace_identity({"PROLIFIC_PID": "abc", "source": "mturk"}) == ("prolific", "abc")
    assert marketplace_identity({"workerId": "A1", "source": "prolific"}) == ("mturk", "A1")
    assert marketplace_identity({"worker_id": "x", "source": "Panel-X"}) == ("panel-x", "x")
    assert marketplace_identity({"STUDY_ID": "s"}) is None


def test_ids_that_used_to_collide_get_two_accounts(study):
    study.marketplace_sources = "prolific, prolific-a"
    first = worker_from_marketplace(project=study, source="prolific", external_id="a-b")
    second = worker_from_marketplace(project=study, source="prolific-a", external_id="b")
    assert first.pk != second.pk
    assert {first.username, second.username} == {"prolific+a-b", "prolific-a+b"}
    assert worker_from_marketplace(project=study, source="prolific", external_id="a-b").pk == first.pk


def test_accounts_made_under_the_old_names_are_still_found(study):
    old = user_create(username="prolific-5f1e")
    WorkerProfile.objects.filter(user=old).update(source="prolific", external_id="5f1e")
    assert worker_from_marketplace(project=study, source="prolific", external_id="5f1e").pk == old.pk


def test_a_name_taken_by_someone_else_gets_a_suffix(study):
    squatter = UserFactory(username="prolific+zz9")
    user = worker_from_marketplace(project=study, source="prolific", external_id="zz9")
    assert user.pk != squatter.pk and user.username.startswith("prolific+zz9+")
    assert WorkerProfile.objects.get(user=user).external_id == "zz9"


def test_malformed_worker_ids_are_refused_before_any_account(study):
    with pytest.raises(AccountError, match="not valid"):
        worker_from_marketplace(project=study, source="prolific", external_id="a+b")
    assert not WorkerProfile.objects.filter(external_id__isnull=False).exists()
