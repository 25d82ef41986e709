"""The admin's read-only views of a linked Prolific study's submissions, webhook deliveries and
sync jobs; linking and decisions are made on the project's Prolific page (or the API), which go
through the services."""

from __future__ import annotations

from django.contrib import admin

from recruiting.models import ProlificSubmission, ProlificSyncJob, ProlificWebhookEvent


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ProlificSubmission)
class ProlificSubmissionAdmin(_ReadOnly):
    list_display = ["submission_id", "participant_id", "project", "worker", "status", "started_at", "completed_at",
                    "freed_at", "decided_how", "screen_out_sent_at"]
    list_filter = ["status", "decided_how", "project"]
    search_fields = ["submission_id", "participant_id"]


@admin.register(ProlificWebhookEvent)
class ProlificWebhookEventAdmin(_ReadOnly):
    list_display = ["event_id", "event_type", "submission_id", "status", "sent_at", "received_at", "outcome"]
    list_filter = ["event_type"]
    search_fields = ["event_id", "submission_id"]


@admin.register(ProlificSyncJob)
class ProlificSyncJobAdmin(_ReadOnly):
    list_display = ["id", "study", "status", "error", "created_by", "created_at", "finished_at"]
    list_filter = ["status"]
