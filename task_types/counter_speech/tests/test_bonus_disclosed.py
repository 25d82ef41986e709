"""A worker is told the bonus for a correct choice, with its amount, in the guidelines and on
the item page; a project that pays none says nothing of one."""

import pytest

from annotation.importers import ParsedItem
from annotation.services import items_import
from annotation.task_types import get_task_type
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
TASK = get_task_type("counter_speech")


def _pages(client, options):
    project = ProjectFactory(task_type="counter_speech", options=TASK.clean_options(options))
    records = TASK.example().records
    items_import(project=project, parsed=[ParsedItem(i, TASK.clean_item(r)) for i, r in enumerate(records, 1)])
    worker = UserFactory()
    project.members.add(worker)
    client.force_login(worker)
    guidelines = client.get(f"/projects/{project.slug}/guidelines/").content.decode()
    item = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    return guidelines, item


def test_the_bonus_and_its_amount_are_disclosed(client):
    guidelines, item = _pages(client, {"bonus_per_correct": "0.25", "currency": "gbp"})
    assert "bonus of 0.25 GBP" in guidelines
    section = item.split('id="task-form"')[1]
    assert "bonus of 0.25 GBP" in section and 'data-testid="bonus"' in section


def test_no_bonus_no_word_of_one(client):
    guidelines, item = _pages(client, {})
    assert "bonus of" not in guidelines and 'data-testid="bonus"' not in item
