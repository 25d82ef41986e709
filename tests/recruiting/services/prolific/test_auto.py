"""The study's automatic rules: completed submissions of workers in good standing approved in
one bulk call, those of workers a quality rule blocked rejected with the rule's evidence kept in
the audit entry; with the switches off, nothing is decided."""

import pytest

from annotation.models import AuditEntry
from annotation.services import annotation_submit, assignment_next
from quality.models import QualityRule
from quality.services.rules.decisions import rule_decide
from recruiting.models import ProlificSubmission
from recruiting.services.prolific.auto import REJECTION_CATEGORY
from recruiting.services.prolific.sync import prolific_submissions_sync
from task_types.pairwise.tests.factories import answer
from tests.recruiting.prolific_helpers import RIGHT, arrive, linked_project
from tests.support.fake_prolific_submissions import participant_set

pytestmark = pytest.mark.django_db


def complete(fake, project, pid):
    sid, worker = arrive(fake, project, pid)
    a = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=a, worker=worker, data=answer(label=RIGHT))
    participant_set(fake, sid, "AWAITING REVIEW")
    return sid, worker


def block(project, worker):
    rule = QualityRule.objects.create(project=project, kind=QualityRule.Kind.GOLD_ACCURACY,
                                      action=QualityRule.Action.BLOCK, threshold=0.7)
    return rule_decide(rule=rule, project=project, worker=worker, trigger="gold answer",
                       evidence={"accuracy": 0.2, "interval": [0.05, 0.5], "answered": 10})


def test_automatic_approval_and_rejection(fake_prolific):
    project = linked_project(auto_approve=True, auto_reject=True)
    good_sid, _ = complete(fake_prolific, project, "pid-good")
    bad_sid, bad = complete(fake_prolific, project, "pid-bad")
    decision = block(project, bad)
    prolific_submissions_sync(study=project.prolific_study)
    assert fake_prolific.submissions[good_sid]["status"] == "APPROVED"
    assert fake_prolific.submissions[bad_sid]["status"] == "REJECTED"
    rejected = ProlificSubmission.objects.get(submission_id=bad_sid)
    assert rejected.decided_how == "auto" and rejected.decided_by is None
    entry = AuditEntry.objects.get(action="prolific_reject")
    assert entry.actor is None and entry.details["evidence"]["decision"] == decision.pk
    assert entry.details["evidence"]["figures"]["accuracy"] == 0.2
    assert entry.details["rejection_category"] == "FAILED_CHECK" and len(entry.details["message"]) >= 100
    # A second sync decides nothing twice.
    prolific_submissions_sync(study=project.prolific_study)
    assert fake_prolific.count("POST", r"submissions/.*/transition/") == 1
    assert fake_prolific.count("POST", r"submissions/bulk-approve/") == 1


def test_without_the_switches_nothing_is_decided(fake_prolific):
    project = linked_project()
    good_sid, _ = complete(fake_prolific, project, "pid-good")
    bad_sid, bad = complete(fake_prolific, project, "pid-bad")
    block(project, bad)
    prolific_submissions_sync(study=project.prolific_study)
    assert {fake_prolific.submissions[s]["status"] for s in (good_sid, bad_sid)} == {"AWAITING REVIEW"}


def test_a_blocked_worker_is_never_approved_automatically(fake_prolific):
    project = linked_project(auto_approve=True)
    bad_sid, bad = complete(fake_prolific, project, "pid-bad")
    block(project, bad)
    prolific_submissions_sync(study=project.prolific_study)
    assert fake_prolific.submissions[bad_sid]["status"] == "AWAITING REVIEW"


def test_each_kind_of_rule_has_its_rejection_category():
    # The Prolific decisions key the categories by the rule kinds' values (the engine names no
    # quality-control model): a new kind of rule shows here.
    assert set(REJECTION_CATEGORY) == set(QualityRule.Kind.values)
