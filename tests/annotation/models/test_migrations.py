"""The migration that brings the marketplace allow-list keeps links already handed out working."""

import pytest

from tests.support.migrations import data_migration, migration_named

pytestmark = pytest.mark.django_db(transaction=True)


# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
@pytest.mark.slow
def test_projects_keep_the_sources_their_workers_came_from():
    with data_migration("annotation", "_revisions_consent_marketplace") as step:
        old = step.before()
        user_model = old.get_model("auth", "User")
        Project = old.get_model("annotation", "Project")
        WorkerProfile = old.get_model("annotation", "WorkerProfile")
        study = Project.objects.create(name="Study", slug="study", task_type="pairwise", external_entry=True)
        closed = Project.objects.create(name="Closed", slug="closed", task_type="pairwise", external_entry=False)
        for username, source in [("a", "panel-x"), ("b", "link"), ("c", "Bad Source!"), ("d", "prolific")]:
            user = user_model.objects.create(username=username)
            WorkerProfile.objects.create(user=user, source=source, external_id=username)
            study.members.add(user)
            closed.members.add(user)

        new = step.after().get_model("annotation", "Project")
        # Listed defaults first, then the sources in use that are valid names; none is invented.
        assert new.objects.get(slug="study").marketplace_sources == "prolific, mturk, link, panel-x"
        assert new.objects.get(slug="closed").marketplace_sources == "prolific, mturk"


def test_a_migration_is_found_by_the_end_of_its_name_and_only_one():
    assert migration_named(app="annotation", suffix="_item_group")[1].endswith("_item_group")
    assert migration_named(app="annotation", suffix="item_group") == migration_named(app="annotation",
                                                                                      suffix="_item_group")
    # "_client_seconds" names one migration, not the later "…_revision_client_seconds" too.
    assert migration_named(app="annotation", suffix="_client_seconds")[1].split("_", 1)[1] == "client_seconds"
    with pytest.raises(AssertionError, match="0 migrations"):
        migration_named(app="annotation", suffix="_no_such_migration")
