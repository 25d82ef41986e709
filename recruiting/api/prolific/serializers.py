"""What the Prolific API endpoints take and answer, for their OpenAPI description and output."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from recruiting.models import ProlificStudy, ProlificSubmission, ProlificSyncJob
from recruiting.providers.prolific.client import REJECTION_CATEGORIES
from recruiting.selectors.prolific import StudyState, SubmissionRow


class StudyLinkInputSerializer(serializers.Serializer):
    """Only the fields given change; ``study_id`` is needed to link a project first."""

    study_id = serializers.CharField(required=False, max_length=100)
    poll_seconds = serializers.IntegerField(required=False, min_value=10)
    auto_approve = serializers.BooleanField(required=False)
    auto_reject = serializers.BooleanField(required=False)


class SyncJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    error = serializers.CharField()
    result = serializers.JSONField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class StudyLinkSerializer(serializers.Serializer):
    study_id = serializers.CharField()
    poll_seconds = serializers.IntegerField()
    auto_approve = serializers.BooleanField()
    auto_reject = serializers.BooleanField()
    last_polled_at = serializers.DateTimeField(allow_null=True)
    token_configured = serializers.BooleanField(help_text="Whether PROLIFIC_API_TOKEN is set (never its value).")
    webhook_configured = serializers.BooleanField(help_text="Whether PROLIFIC_WEBHOOK_SECRET is set.")
    submissions_by_status = serializers.DictField(child=serializers.IntegerField())
    last_sync = SyncJobSerializer(allow_null=True)


class SubmissionSerializer(serializers.Serializer):
    submission_id = serializers.CharField()
    participant_id = serializers.CharField()
    worker = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=ProlificSubmission.Status.choices)
    started_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)
    freed_at = serializers.DateTimeField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    decided_how = serializers.CharField()
    decided_by = serializers.CharField(allow_null=True)
    screen_out_sent_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField()
    answers = serializers.IntegerField(help_text="Counted answers to real items.")
    approved = serializers.IntegerField()
    open = serializers.IntegerField()
    gold_answered = serializers.IntegerField()
    gold_right = serializers.IntegerField()
    standing = serializers.CharField()


class SubmissionListSerializer(serializers.Serializer):
    submissions = SubmissionSerializer(many=True)


class DecisionInputSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=["approve", "reject"])
    submissions = serializers.ListField(child=serializers.CharField(max_length=100), min_length=1, max_length=500,
                                        help_text="Prolific submission ids of this project's study.")
    message = serializers.CharField(required=False, help_text="To the participant; rejection: 100 characters or more.")
    rejection_category = serializers.ChoiceField(choices=list(REJECTION_CATEGORIES), required=False)


class SingleDecisionInputSerializer(serializers.Serializer):
    message = serializers.CharField(required=False)
    rejection_category = serializers.ChoiceField(choices=list(REJECTION_CATEGORIES), required=False)


class DecisionResultSerializer(serializers.Serializer):
    decided = serializers.ListField(child=serializers.CharField())
    refused = serializers.DictField(child=serializers.CharField())


def job_data(job: ProlificSyncJob | None) -> dict[str, Any] | None:
    if job is None:
        return None
    return {"id": job.pk, "status": job.status, "error": job.error, "result": job.result,
            "created_at": job.created_at, "finished_at": job.finished_at}


def study_data(state: StudyState) -> dict[str, Any]:
    study: ProlificStudy = state.study
    return {"study_id": study.study_id, "poll_seconds": study.poll_seconds, "auto_approve": study.auto_approve,
            "auto_reject": study.auto_reject, "last_polled_at": study.last_polled_at,
            "token_configured": state.token_configured, "webhook_configured": state.webhook_configured,
            "submissions_by_status": state.by_status, "last_sync": job_data(state.last_job)}


def submission_data(row: SubmissionRow) -> dict[str, Any]:
    s = row.submission
    return {"submission_id": s.submission_id, "participant_id": s.participant_id, "worker": s.worker_id,
            "status": s.status, "started_at": s.started_at, "completed_at": s.completed_at, "freed_at": s.freed_at,
            "decided_at": s.decided_at, "decided_how": s.decided_how,
            "decided_by": s.decided_by.get_username() if s.decided_by else None,
            "screen_out_sent_at": s.screen_out_sent_at, "last_error": s.last_error, "answers": row.answers,
            "approved": row.approved, "open": row.open, "gold_answered": row.gold_answered,
            "gold_right": row.gold_right, "standing": row.standing}
