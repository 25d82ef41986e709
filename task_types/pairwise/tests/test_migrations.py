"""The argument corpus moved from the annotation app to the pairwise app: a database that holds
topics, arguments and rows that point to them before the move holds all of them after it, read
through the pairwise models, with the permissions that name the models still held."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from annotation.models import Item
from annotation.task_types import get_task_type
from task_types.pairwise.models import Argument, Topic
from tests.support.migrations import data_migration

# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_topics_arguments_and_what_points_to_them_survive_the_move():
    ContentType.objects.clear_cache()
    with data_migration("annotation", "_corpus_moves_to_pairwise") as step:
        # Before the move, with no pairwise table yet.
        old = step.before(also=[("pairwise", None)])
        assert {"annotation_topic", "annotation_argument"} <= set(connection.introspection.table_names())
        old_topic, old_argument = old.get_model("annotation", "Topic"), old.get_model("annotation", "Argument")
        content_type = old.get_model("contenttypes", "ContentType")
        permission = old.get_model("auth", "Permission")
        group = old.get_model("auth", "Group")
        project = old.get_model("annotation", "Project").objects.create(name="P", slug="p", task_type="pairwise")
        good = old_topic.objects.create(external_id="uniform_good", prompt="Uniforms?", stance="Good")
        bad = old_topic.objects.create(external_id="uniform_bad", prompt="Uniforms?", stance="Bad")
        for n, topic in enumerate([good, good, good, bad]):
            old_argument.objects.create(external_id=f"a{n}", topic=topic, text=f"argument {n}", author=f"w{n}")
        # An item built from two of the arguments, and a group holding a right on the model.
        old.get_model("annotation", "Item").objects.create(
            project=project, external_id="a0_a1", position=1, redundancy=3,
            payload={"topic": "uniform_good", "prompt": "Uniforms?", "stance": "Good",
                     "arg1": {"id": "a0", "text": "argument 0"}, "arg2": {"id": "a1", "text": "argument 1"}})
        topic_type = content_type.objects.get(app_label="annotation", model="topic")
        change = permission.objects.get_or_create(content_type=topic_type, codename="change_topic",
                                                  defaults={"name": "Can change topic"})[0]
        group.objects.create(name="editors").permissions.add(change)
    # Leaving the block moved the database to the latest migrations of every app.
    ContentType.objects.clear_cache()

    assert sorted(Topic.objects.values_list("external_id", "stance")) == [("uniform_bad", "Bad"), ("uniform_good", "Good")]
    assert [(a.external_id, a.topic.external_id, a.author) for a in Argument.objects.order_by("external_id")] == [
        ("a0", "uniform_good", "w0"), ("a1", "uniform_good", "w1"), ("a2", "uniform_good", "w2"), ("a3", "uniform_bad", "w3")]
    assert Topic.objects.get(external_id="uniform_good").arguments.count() == 3
    tables = set(connection.introspection.table_names())
    assert {"pairwise_topic", "pairwise_argument"} <= tables and not {"annotation_topic", "annotation_argument"} & tables
    # The rights on topics moved with the model's content type, and the group still holds them.
    moved = Permission.objects.get(content_type__app_label="pairwise", codename="change_topic")
    assert moved.content_type == ContentType.objects.get_for_model(Topic)
    assert list(Group.objects.get(name="editors").permissions.all()) == [moved]
    assert not ContentType.objects.filter(app_label="annotation", model__in=["topic", "argument"]).exists()
    # New rows take new ids, and the item's arguments are found where crowd results look them up.
    assert Topic.objects.create(external_id="new", prompt="?").pk > Topic.objects.get(external_id="uniform_bad").pk
    item = Item.objects.get(external_id="a0_a1")
    built = get_task_type("pairwise").crowd_items({"x": {"topic": "uniform_good", "arg1": "a0", "arg2": "a2"}})
    assert item.payload["arg1"]["id"] == "a0" and built["x"].payload["arg2"]["text"] == "argument 2"
