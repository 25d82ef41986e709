"""Marketplace arrivals: the project's panel, account names, sessions already open, MTurk previews,
the welcome and consent step, and the way out with the completion code."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Consent, WorkerProfile
from annotation.services.accounts import AccountError, user_create
from recruiting.panels import panel_setup
from recruiting.services.marketplace import marketplace_identity, worker_from_marketplace
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def study():
    project = ProjectFactory(open_to_all=False, external_entry=True, completion_code="C0DE-77",
                             completion_url="https://app.prolific.com/submissions/complete?cc=C0DE-77",
                             consent_text="We record your answers and **nothing else**.", redundancy=1,
                             panel="prolific")
    ItemFactory(project=project)
    return project


def start_url(project, **params):
    from urllib.parse import urlencode

    return reverse("start", args=[project.slug]) + "?" + urlencode(params)


def custom(project, name="panel-x", param="worker_id"):
    project.panel, project.custom_source, project.worker_param = "custom", name, param
    project.save()
    return project


def test_a_custom_panel_reads_its_own_parameter_under_its_own_name(client, study):
    custom(study, "panel-x", "pid")
    refused = client.get(start_url(study, worker_id="w1", source="crowdcorp"))
    assert refused.status_code == 400
    assert "(pid=…)" in refused.content.decode()
    assert not User.objects.exclude(is_superuser=True).exists()
    # The link's own ``source`` names nothing: the project's panel does.
    accepted = client.get(start_url(study, pid="w1", source="prolific"))
    assert accepted.status_code == 302
    assert WorkerProfile.objects.get(external_id="w1").source == "panel-x"


def test_a_generic_link_is_a_custom_panel_named_link(client, study):
    assert client.get(start_url(study, worker_id="w2")).status_code == 400
    custom(study, "link")
    assert client.get(start_url(study, worker_id="w2")).status_code == 302
    assert WorkerProfile.objects.get(external_id="w2").source == "link"


def test_custom_panel_names_are_checked_when_the_admin_saves_them(study):
    study.panel = "custom"
    study.custom_source = "Bad Name"
    with pytest.raises(ValidationError) as bad:
        study.full_clean()
    assert "custom_source" in bad.value.message_dict
    # A preset's name would let a custom link pass a worker off as that panel's.
    study.custom_source = "prolific"
    with pytest.raises(ValidationError, match="is a preset's name"):
        study.full_clean()
    study.custom_source, study.worker_param = "own_panel-2", "a b"
    with pytest.raises(ValidationError) as bad:
        study.full_clean()
    assert "worker_param" in bad.value.message_dict
    study.worker_param = "uid"
    study.full_clean()
    assert panel_setup(study).source == "own_panel-2"


def test_source_does_not_rename_a_known_marketplace(study):
    assert marketplace_identity(project=study, params={"PROLIFIC_PID": "abc", "source": "mturk"}) == ("prolific", "abc")
    assert marketplace_identity(project=study, params={"workerId": "A1", "source": "prolific"}) is None
    study.panel = "mturk"
    assert marketplace_identity(project=study, params={"workerId": "A1", "source": "prolific"}) == ("mturk", "A1")
    custom(study, "panel-x")
    assert marketplace_identity(project=study, params={"worker_id": "x", "source": "Panel-Y"}) == ("panel-x", "x")
    assert marketplace_identity(project=study, params={"STUDY_ID": "s"}) is None


def test_ids_that_used_to_collide_get_two_accounts(study):
    other = custom(ProjectFactory(external_entry=True), "prolific-a")
    first = worker_from_marketplace(project=study, source="prolific", external_id="a-b")
    second = worker_from_marketplace(project=other, source="prolific-a", external_id="b")
    assert first.pk != second.pk
    assert {first.username, second.username} == {"prolific+a-b", "prolific-a+b"}
    assert worker_from_marketplace(project=study, source="prolific", external_id="a-b").pk == first.pk
    # Each project takes its own panel's workers only.
    with pytest.raises(AccountError, match="does not accept workers from “prolific-a”"):
        worker_from_marketplace(project=study, source="prolific-a", external_id="b")


def test_accounts_made_under_the_old_names_are_still_found(study):
    old = user_create(username="prolific-5f1e")
    WorkerProfile.objects.filter(user=old).update(source="prolific", external_id="5f1e")
    assert worker_from_marketplace(project=study, source="prolific", external_id="5f1e").pk == old.pk


def test_a_name_taken_by_someone_else_gets_a_suffix(study):
    squatter = UserFactory(username="prolific+zz9")
    user = worker_from_marketplace(project=study, source="prolific", external_id="zz9")
    assert user.pk != squatter.pk and user.username.startswith("prolific+zz9+")
    assert WorkerProfile.objects.get(user=user).external_id == "zz9"


def test_the_welcome_step_comes_before_the_first_item_and_must_be_accepted(client, study):
    response = client.get(start_url(study, PROLIFIC_PID="p1", STUDY_ID="s1"))
    annotate = reverse("annotate", args=[study.slug])
    welcome = reverse("welcome", args=[study.slug])
    assert response.url == annotate
    assert client.get(annotate).url == welcome
    assert not Assignment.objects.exists()  # no lease before consent
    page = client.get(welcome).content.decode()
    assert "<strong>nothing else</strong>" in page  # the consent text, as Markdown
    assert "Which argument is more convincing?" in page  # the guidelines
    refused = client.post(welcome, {})
    assert refused.status_code == 400 and "Please tick the box" in refused.content.decode()
    assert not Consent.objects.exists()
    assert client.post(welcome, {"accept": "yes"}).url == annotate
    consent = Consent.objects.get()
    assert consent.text == study.consent_text and consent.worker.profile.external_id == "p1"
    assert client.get(annotate).context["assignment"] is not None
    assert client.get(welcome).url == annotate  # accepted once, not asked again


def test_marketplace_workers_get_no_internal_navigation(client, study):
    client.get(start_url(study, PROLIFIC_PID="p2"))
    for url in (reverse("welcome", args=[study.slug]), reverse("guidelines", args=[study.slug])):
        body = client.get(url).content.decode()
        assert f'href="{reverse("projects")}"' not in body
        assert "/admin/" not in body and "Log out" not in body
        assert 'data-testid="study-name"' in body
    client.post(reverse("welcome", args=[study.slug]), {"accept": "yes"})
    body = client.get(reverse("annotate", args=[study.slug])).content.decode()
    assert f'href="{reverse("projects")}"' not in body
    assert client.get(reverse("home")).url == reverse("annotate", args=[study.slug])


def test_completion_offers_the_code_to_copy_and_the_way_back(client, study):
    client.get(start_url(study, PROLIFIC_PID="p3"))
    client.post(reverse("welcome", args=[study.slug]), {"accept": "yes"})
    assignment = client.get(reverse("annotate", args=[study.slug])).context["assignment"]
    done = client.post(reverse("submit", args=[study.slug, assignment.pk]), answer(), HTTP_HX_REQUEST="true")
    body = done.content.decode()
    assert 'id="completion-code" data-testid="completion-code">C0DE-77<' in body
    assert 'data-copy="completion-code"' in body
    assert 'href="https://app.prolific.com/submissions/complete?cc=C0DE-77"' in body


def test_staff_sessions_are_never_replaced_by_a_link(client, study):
    researcher = UserFactory(role="researcher", username="res")
    client.force_login(researcher)
    response = client.get(start_url(study, PROLIFIC_PID="p4"))
    assert response.status_code == 409
    assert "You are logged in as staff" in response.content.decode()
    assert client.get(reverse("projects")).context["user"].pk == researcher.pk
    assert not WorkerProfile.objects.filter(external_id="p4").exists()
    # Not even a forged confirmation switches a staff session.
    client.post(start_url(study, PROLIFIC_PID="p4"), {"switch": "yes"})
    assert client.get(reverse("projects")).context["user"].pk == researcher.pk


def test_another_logged_in_worker_is_switched_only_on_request(client, study):
    client.get(start_url(study, PROLIFIC_PID="first"))
    first = WorkerProfile.objects.get(external_id="first").user
    # The same worker's link again: no question asked.
    assert client.get(start_url(study, PROLIFIC_PID="first")).status_code == 302
    url = start_url(study, PROLIFIC_PID="second")
    ask = client.get(url)
    assert ask.status_code == 200
    body = ask.content.decode()
    assert "Switch to this study's worker?" in body and "second" in body
    assert f'action="{url.replace("&", "&amp;")}"' in body
    assert client.get(reverse("welcome", args=[study.slug])).context["user"].pk == first.pk
    assert not WorkerProfile.objects.filter(external_id="second").exists()
    switched = client.post(url, {"switch": "yes"})
    assert switched.url == reverse("annotate", args=[study.slug])
    assert client.get(reverse("welcome", args=[study.slug])).context["user"].profile.external_id == "second"


def test_a_logged_in_annotator_is_asked_before_a_worker_link_takes_over(client, study):
    annotator = UserFactory()
    client.force_login(annotator)
    assert "Switch to this study's worker?" in client.get(start_url(study, PROLIFIC_PID="A9")).content.decode()
    assert client.get(reverse("projects")).context["user"].pk == annotator.pk


def test_an_mturk_preview_shows_the_task_without_account_or_lease(client, study):
    study.panel = "mturk"
    study.save()
    response = client.get(start_url(study, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId="H1"))
    assert response.status_code == 200 and response.context["preview"] == "mturk"
    body = response.content.decode()
    assert "Accept the HIT to start" in body
    assert study.items.get().payload["arg1"]["text"] in body
    assert 'id="task-form"' not in body and "disabled" in body
    assert not Assignment.objects.exists()
    assert not WorkerProfile.objects.filter(external_id__isnull=False).exists()
    assert "_auth_user_id" not in client.session
    study.panel = "prolific"
    study.save()
    assert client.get(start_url(study, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE")).status_code == 400


def test_malformed_worker_ids_are_refused_before_any_account(study):
    with pytest.raises(AccountError, match="not valid"):
        worker_from_marketplace(project=study, source="prolific", external_id="a+b")
    assert not WorkerProfile.objects.filter(external_id__isnull=False).exists()


def test_two_browsers_of_one_worker_share_one_account(study):
    a, b = Client(), Client()
    a.get(start_url(study, PROLIFIC_PID="twice"))
    b.get(start_url(study, PROLIFIC_PID="twice"))
    assert WorkerProfile.objects.filter(external_id="twice").count() == 1
    assert a.session["_auth_user_id"] == b.session["_auth_user_id"]


def test_the_api_gives_no_item_before_the_welcome_step_is_accepted(client, study):
    client.get(start_url(study, PROLIFIC_PID="w-api"))
    next_url = f"/api/projects/{study.slug}/assignments/next/"
    # The marketplace session reaches the API too, but the consent rule holds there as well.
    refused = client.post(next_url)
    assert refused.json() == {"assignment": None, "reason": "consent"}
    assert not Assignment.objects.exists()
    client.post(reverse("welcome", args=[study.slug]), {"accept": "yes"})
    taken = client.post(next_url)
    assert taken.json()["assignment"] is not None
