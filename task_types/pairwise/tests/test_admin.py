"""The argument corpus in the admin: staff keep the rights on topics and arguments that their
role gives on the rest of the platform (admins change them, researchers only look)."""

import pytest
from django.urls import reverse

from task_types.pairwise.tests.factories import ArgumentFactory
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_admins_manage_the_corpus_and_researchers_read_it(client):
    argument = ArgumentFactory(external_id="uniform-1")
    topics, arguments = reverse("admin:pairwise_topic_changelist"), reverse("admin:pairwise_argument_changelist")
    client.force_login(UserFactory(role="admin"))
    assert argument.topic.external_id in client.get(topics).content.decode()
    assert "uniform-1" in client.get(arguments).content.decode()
    assert client.get(reverse("admin:pairwise_argument_change", args=[argument.pk])).status_code == 200
    assert client.get(reverse("admin:pairwise_topic_add")).status_code == 200
    client.force_login(UserFactory(role="researcher"))
    assert "uniform-1" in client.get(arguments).content.decode()
    assert client.get(reverse("admin:pairwise_topic_add")).status_code == 403
