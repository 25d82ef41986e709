"""The migration that makes training feedback a setting keeps what the workers of an existing
project were shown (the expected answer after each item); a policy made after it starts from
right/wrong only."""

import pytest

from tests.support.migrations import data_migration

# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_existing_policies_keep_showing_the_expected_answers_and_new_ones_do_not():
    with data_migration("annotation", "_training_feedback") as step:
        old = step.before()
        Project, QualityPolicy = old.get_model("annotation", "Project"), old.get_model("annotation", "QualityPolicy")
        for slug, shown in (("gold-shown", True), ("gold-hidden", False)):
            project = Project.objects.create(name=slug, slug=slug, task_type="pairwise")
            QualityPolicy.objects.create(project=project, gold_feedback=shown)

        new = step.after()
        policies = new.get_model("annotation", "QualityPolicy").objects.all()
        assert {p.project.slug: p.training_feedback for p in policies} == {"gold-shown": "after_each",
                                                                          "gold-hidden": "after_each"}
        fresh = new.get_model("annotation", "Project").objects.create(name="new", slug="new", task_type="pairwise")
        policy = new.get_model("annotation", "QualityPolicy").objects.create(project=fresh)
        assert policy.training_feedback == "right_wrong"
