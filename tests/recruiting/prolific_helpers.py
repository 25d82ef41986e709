"""A project linked to a study on the fake Prolific, and participants arriving by its link."""

from __future__ import annotations

from urllib.parse import urlencode

from django.test import Client
from django.urls import reverse

from annotation.models import ItemKind, Project
from recruiting.models import ProlificStudy
from recruiting.services.marketplace import worker_from_marketplace
from tests.factories import ItemFactory, ProjectFactory
from tests.quality_factories import check_item, quality_policy
from tests.support.fake_prolific_submissions import participant_join

RIGHT, WRONG = "a1", "a2"  # the pairwise worked example's gold label is a1


def linked_project(*, study_id: str = "study-1", items: int = 4, qualification: int = 0, **study_fields) -> Project:
    project = ProjectFactory(open_to_all=False, external_entry=True, panel="prolific", redundancy=2, completion_code="C0DE",
                             consent_text="We record your answers.")
    for _ in range(items):
        ItemFactory(project=project)
    if qualification:
        quality_policy(project, qualification_items=qualification, qualification_attempts=1, qualification_pass=1.0)
        for _ in range(qualification * 2):
            check_item(project, kind=ItemKind.TRAINING, answer={"label": RIGHT})
    ProlificStudy.objects.create(project=project, study_id=study_id, **study_fields)
    return project


def arrive(fake, project: Project, pid: str, *, client: Client | None = None):
    """The participant takes a place on Prolific and opens the study link; returns (submission
    id on the fake, their account)."""
    study = project.prolific_study
    sid = participant_join(fake, study_id=study.study_id, participant_id=pid)
    if client is not None:
        query = urlencode({"PROLIFIC_PID": pid, "STUDY_ID": study.study_id, "SESSION_ID": sid})
        client.get(reverse("start", args=[project.slug]) + "?" + query)
        client.post(reverse("welcome", args=[project.slug]), {"accept": "yes"})
    user = worker_from_marketplace(project=project, source="prolific", external_id=pid)
    return sid, user
