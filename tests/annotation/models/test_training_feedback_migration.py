"""The migration that makes training feedback a setting keeps what the workers of an existing
project were shown (the expected answer after each item); a policy made after it starts from
right/wrong only."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def feedback_migration(executor) -> tuple[str, str]:
    # Found by name: migrations of this app are renumbered when branches merge.
    names = [key for key in executor.loader.graph.nodes
             if key[0] == "annotation" and key[1].endswith("training_feedback")]
    assert len(names) == 1
    return names[0]


def test_existing_policies_keep_showing_the_expected_answers_and_new_ones_do_not():
    executor = MigrationExecutor(connection)
    target = feedback_migration(executor)
    parent = next(p.key for p in executor.loader.graph.node_map[target].parents if p.key[0] == "annotation")
    executor.migrate([parent])
    old = executor.loader.project_state([parent]).apps
    Project, QualityPolicy = old.get_model("annotation", "Project"), old.get_model("annotation", "QualityPolicy")
    for slug, shown in (("gold-shown", True), ("gold-hidden", False)):
        project = Project.objects.create(name=slug, slug=slug, task_type="pairwise")
        QualityPolicy.objects.create(project=project, gold_feedback=shown)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    new = executor.loader.project_state([target]).apps
    policies = new.get_model("annotation", "QualityPolicy").objects.all()
    assert {p.project.slug: p.training_feedback for p in policies} == {"gold-shown": "after_each",
                                                                      "gold-hidden": "after_each"}
    fresh = new.get_model("annotation", "Project").objects.create(name="new", slug="new", task_type="pairwise")
    assert new.get_model("annotation", "QualityPolicy").objects.create(project=fresh).training_feedback == "right_wrong"
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
