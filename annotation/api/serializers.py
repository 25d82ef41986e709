from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.models import Annotation, Assignment, ImportJob, Item, Project
from jobs.selectors import live_state


class ProjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["slug", "name", "task_type", "redundancy", "state", "lease_minutes",
                  "max_items_per_worker", "keep_import_order", "guidelines", "created_at"]


class ItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = Item
        fields = ["external_id", "payload", "gold", "kind", "position", "redundancy", "n_active"]


_datetime = serializers.DateTimeField()


def _when(value):
    return None if value is None else _datetime.to_representation(value)


# The annotation loop's two answers are built by hand: they are the API's busiest, and a
# serializer instance per response costs more than the rest of the request's Python.
def assignment_data(a: Assignment, *, payload: Mapping[str, Any]) -> dict:
    """An assignment as the annotator sees it: the item's ``payload`` as the task type lets this
    worker see it (``TaskType.worker_payload``), its options already in the order drawn for the
    assignment, which ``shown_order`` states (None: import order); never its gold answer. The
    assignment's ``id`` is the worker's only reference to the item: its external id stays with the
    staff, since an importer's ids may name the answer or the systems compared (``topic|stance|systems``)."""
    return {"id": a.pk, "status": a.status, "assigned_at": _when(a.assigned_at), "expires_at": _when(a.expires_at),
            "submitted_at": _when(a.submitted_at), "shown_order": a.shown_order, "item": {"payload": payload}}


def annotation_data(annotation: Annotation) -> dict:
    return {"id": annotation.pk, "assignment": annotation.assignment_id, "answer": annotation.answer,
            "reason": annotation.reason, "seconds": annotation.seconds, "created_at": _when(annotation.created_at)}


class ImportSerializer(serializers.Serializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=["csv", "tsv", "json", "jsonl"], required=False)
    on_duplicate = serializers.ChoiceField(choices=["reject", "update"], default="reject")


class JobFieldsMixin(serializers.Serializer):
    """Status with live progress (from the running attempt) for any job."""

    progress = serializers.SerializerMethodField()
    stage = serializers.SerializerMethodField()
    heartbeat_at = serializers.SerializerMethodField()

    def get_progress(self, obj) -> float:
        return round(live_state(job=obj).progress, 4)

    def get_stage(self, obj) -> str:
        return live_state(job=obj).stage

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_heartbeat_at(self, obj):
        beat = live_state(job=obj).heartbeat_at
        return beat.isoformat() if beat else None


class ImportJobSerializer(JobFieldsMixin, serializers.ModelSerializer):
    project: serializers.SlugRelatedField[Project] = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = ImportJob
        fields = ["id", "project", "kind", "filename", "size", "options", "status", "progress", "stage",
                  "heartbeat_at", "error", "errors", "error_count", "result", "attempts", "created_at",
                  "started_at", "finished_at"]
