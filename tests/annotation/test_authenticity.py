"""Authenticity signals: hostile values are clamped or left out, the page's form fields and the
API's ``signals`` object are stored with the answer, and signals never refuse an answer."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.authenticity import LIMITS, signals_clean, signals_from_form
from annotation.models import Annotation
from annotation.services import assignment_next
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory


@pytest.mark.parametrize("raw, expected", [
    ({"pasted": 12, "hidden_ms": 3400, "blurs": 2, "webdriver": False},
     {"pasted": 12, "hidden_ms": 3400, "blurs": 2, "webdriver": False}),
    ({"pasted": "7", "hidden_ms": "1500.7", "blurs": " 3 ", "webdriver": "1"},
     {"pasted": 7, "hidden_ms": 1500, "blurs": 3, "webdriver": True}),
    ({"pasted": -5, "hidden_ms": -1, "blurs": -9}, {"pasted": 0, "hidden_ms": 0, "blurs": 0}),
    ({"pasted": 10**30, "hidden_ms": "1e400", "blurs": float("inf")}, {"pasted": LIMITS["pasted"]}),
    ({"pasted": "NaN", "hidden_ms": "nan", "blurs": "abc", "webdriver": "maybe"}, {}),
    ({"pasted": True, "hidden_ms": None, "blurs": [1], "webdriver": {"x": 1}}, {}),
    ({"pasted": "9" * 5000}, {"pasted": LIMITS["pasted"]}),
    ({"webdriver": 2}, {}),
    ({"webdriver": 0}, {"webdriver": False}),
    ({}, {}),
])
def test_signals_are_clamped_whole_numbers_and_a_flag(raw, expected):
    assert signals_clean(raw) == expected


@pytest.mark.parametrize("raw", [None, "pasted=3", ["pasted", 3], 17])
def test_anything_but_an_object_gives_no_signals(raw):
    assert signals_clean(raw) == {}


def test_form_fields_absent_stay_absent():
    assert signals_from_form({"client_pasted": "4"}) == {"pasted": 4}
    assert signals_from_form({"client_elapsed_ms": "100"}) == {}
    assert signals_from_form({"client_webdriver": "0", "client_blurs": "x\x00"}) == {"webdriver": False}


@pytest.mark.django_db
def test_the_page_stores_the_signals_with_the_answer(client):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    client.force_login(worker)
    a = assignment_next(project=project, worker=worker).assignment
    fields = {**answer(), "client_elapsed_ms": "2000", "client_pasted": "61", "client_hidden_ms": "-20",
              "client_blurs": "99999999999", "client_webdriver": "1"}
    response = client.post(reverse("submit", args=[project.slug, a.pk]), fields)
    assert response.status_code == 302
    stored = Annotation.objects.get(assignment=a)
    assert stored.client["signals"] == {"pasted": 61, "hidden_ms": 0, "blurs": LIMITS["blurs"], "webdriver": True}


@pytest.mark.django_db
def test_a_page_without_the_script_stores_no_signals(client):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    client.force_login(worker)
    a = assignment_next(project=project, worker=worker).assignment
    client.post(reverse("submit", args=[project.slug, a.pk]), answer())
    assert "signals" not in Annotation.objects.get(assignment=a).client


@pytest.mark.django_db
def test_the_api_takes_a_signals_object_and_never_refuses_for_it():
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(3, project=project)
    worker = UserFactory()
    api = APIClient()
    api.force_authenticate(worker)
    sent = [({"pasted": 3, "hidden_ms": 10, "blurs": 1, "webdriver": True},
             {"pasted": 3, "hidden_ms": 10, "blurs": 1, "webdriver": True}),
            ({"pasted": "lots", "webdriver": "yes-ish"}, None),
            ("not an object", None)]
    for signals, expected in sent:
        a = assignment_next(project=project, worker=worker).assignment
        response = api.post(f"/api/assignments/{a.pk}/submit/", {**answer(), "signals": signals}, format="json")
        assert response.status_code == 201, response.content
        assert Annotation.objects.get(assignment=a).client.get("signals") == expected


@pytest.mark.django_db
def test_the_api_refuses_numbers_no_database_stores_naming_the_field():
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    api = APIClient()
    api.force_authenticate(worker)
    a = assignment_next(project=project, worker=worker).assignment
    response = api.post(f"/api/assignments/{a.pk}/submit/", {**answer(), "signals": {"pasted": 2**70}}, format="json")
    assert response.status_code == 400 and "signals" in response.json()
    assert not Annotation.objects.filter(assignment=a).exists()


@pytest.mark.parametrize("device, kept", [
    ("5f0c6c1e-6b7a-4d55-9d3e-2f1f0e9a1b2c", True),
    ("abcd1234", True),
    ("short", False),
    ("x" * 65, False),
    ("<script>alert(1)</script>", False),
    ("5f0c6c1e 6b7a", False),
    (12345678, False),
])
def test_a_device_id_is_kept_only_in_the_form_the_page_makes(device, kept):
    assert signals_clean({"device": device}) == ({"device": device} if kept else {})
    assert signals_from_form({"client_device": device}) == ({"device": device} if kept else {})


@pytest.mark.django_db
def test_the_page_and_the_api_store_the_device_id_with_the_answer(client):
    project = ProjectFactory(redundancy=2)
    ItemFactory(project=project)
    web, api_user = UserFactory(), UserFactory()
    client.force_login(web)
    a = assignment_next(project=project, worker=web).assignment
    client.post(reverse("submit", args=[project.slug, a.pk]), {**answer(), "client_device": "device-0001"})
    assert Annotation.objects.get(assignment=a).client["signals"] == {"device": "device-0001"}
    c = APIClient()
    c.force_authenticate(api_user)
    b = assignment_next(project=project, worker=api_user).assignment
    sent = c.post(reverse("api-submit", args=[b.pk]), {**answer(), "signals": {"device": "device-0001"}},
                  format="json")
    assert sent.status_code == 201
    assert Annotation.objects.get(assignment=b).client["signals"] == {"device": "device-0001"}
