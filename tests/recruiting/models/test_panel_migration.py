"""The migration to recruiting panels gives each project the panel its workers came from, so the
links already handed out keep working and every worker keeps their account."""

import pytest

from tests.support.migrations import data_migration

# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_projects_get_the_panel_their_workers_came_from():
    with data_migration("annotation", "_recruiting_panels") as step:
        old = step.before()
        User = old.get_model("auth", "User")
        Project = old.get_model("annotation", "Project")
        WorkerProfile = old.get_model("annotation", "WorkerProfile")

        def project(slug, sources, **fields):
            return Project.objects.create(name=slug, slug=slug, task_type="pairwise", external_entry=True,
                                          marketplace_sources=sources, **fields)

        def workers(p, source, n):
            for i in range(n):
                user = User.objects.create(username=f"{source}+{p.slug}{i}")
                WorkerProfile.objects.create(user=user, source=source, external_id=f"{p.slug}{i}")
                p.members.add(user)

        by_url = project("by-url", "prolific, mturk",
                         completion_url="https://app.prolific.com/submissions/complete?cc=X")
        workers(by_url, "mturk", 3)
        mostly_mturk = project("mostly-mturk", "prolific, mturk")
        workers(mostly_mturk, "mturk", 2)
        workers(mostly_mturk, "prolific", 1)
        project("untouched", "prolific, mturk")
        own = project("own", "prolific, panel-x")
        workers(own, "panel-x", 1)
        project("generic", "link")
        project("nothing", "")

        new = step.after().get_model("annotation", "Project")
        got = {p.slug: (p.panel, p.custom_source if p.panel == "custom" else "", p.worker_param, p.external_entry)
               for p in new.objects.all()}
        assert got == {
            "by-url": ("prolific", "", "worker_id", True),  # its completion URL is Prolific's
            "mostly-mturk": ("mturk", "", "worker_id", True),
            "untouched": ("prolific", "", "worker_id", True),  # the first it listed
            "own": ("custom", "panel-x", "worker_id", True),  # worker_id=…&source=panel-x links
            "generic": ("custom", "link", "worker_id", True),
            "nothing": ("prolific", "", "worker_id", False),  # it took no link, and still takes none
        }
