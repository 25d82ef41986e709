"""The migration that brings the marketplace allow-list keeps links already handed out working."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def allow_list_migration(executor) -> tuple[str, str]:
    # Found by name: migrations of this app are renumbered when branches merge.
    names = [key for key in executor.loader.graph.nodes
             if key[0] == "annotation" and key[1].endswith("revisions_consent_marketplace")]
    assert len(names) == 1
    return names[0]


def test_projects_keep_the_sources_their_workers_came_from():
    executor = MigrationExecutor(connection)
    target = allow_list_migration(executor)
    before = executor.loader.graph.node_map[target].parents
    parent = next(p.key for p in before if p.key[0] == "annotation")
    executor.migrate([parent])
    old = executor.loader.project_state([parent]).apps
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

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    new = executor.loader.project_state([target]).apps.get_model("annotation", "Project")
    # Listed defaults first, then the sources in use that are valid names; none is invented.
    assert new.objects.get(slug="study").marketplace_sources == "prolific, mturk, link, panel-x"
    assert new.objects.get(slug="closed").marketplace_sources == "prolific, mturk"
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
