"""The staff side of the API as the OpenAPI schema describes it: progress, task types, imports,
media files and the bonus ledger. The views build these answers by hand; these serializers only
describe them and never run."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers

from annotation.api.schema.errors import RowErrors, error, field_errors
from annotation.api.serializers import ImportJobSerializer
from annotation.exports import FORMATS


# A field named like a Serializer attribute (errors, partial, required, source, label) is the
# answer's key; DRF's metaclass moves declared fields off the class, so the names never clash at
# run time (the type checker sees the class body only).
class ProgressOut(serializers.Serializer):
    items = serializers.IntegerField()
    complete = serializers.IntegerField(help_text="Items with all their answers.")
    partial = serializers.IntegerField()  # type: ignore[assignment]
    untouched = serializers.IntegerField()
    submitted = serializers.IntegerField(help_text="Answers counted.")
    target = serializers.IntegerField(help_text="Answers wanted: items times redundancy.")
    open = serializers.IntegerField(help_text="Assignments leased now.")
    percent = serializers.FloatField(help_text="submitted / target, in percent (one decimal).")


class Category(serializers.Serializer):
    value = serializers.JSONField()
    text = serializers.CharField()


class AnswerField(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    required = serializers.BooleanField()  # type: ignore[assignment]
    description = serializers.CharField(allow_blank=True)


class ImportField(serializers.Serializer):
    name = serializers.CharField()
    required = serializers.BooleanField()  # type: ignore[assignment]
    description = serializers.CharField(allow_blank=True)


class TaskTypeExample(serializers.Serializer):
    records = serializers.ListField(child=serializers.JSONField(), help_text="Items to import.")
    answer = serializers.JSONField(help_text="A valid answer to the first.")
    invalid = serializers.JSONField(help_text="An answer that is refused.")
    invalid_field = serializers.CharField(help_text="The field the refusal names.")
    options = serializers.DictField(child=serializers.JSONField())


class TaskTypeOut(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    level = serializers.CharField(help_text="The label's level (nominal, ordinal, …).")
    categories = Category(many=True)
    answer_fields = AnswerField(many=True)
    metric_fields = serializers.ListField(child=serializers.CharField())
    import_fields = ImportField(many=True)
    export_columns = serializers.ListField(child=serializers.CharField())
    options = serializers.DictField(child=serializers.JSONField(), help_text="Project options and their defaults.")
    example = TaskTypeExample()


class CrowdImportIn(serializers.Serializer):
    file = serializers.FileField()
    format = serializers.CharField(required=False, allow_blank=True, help_text="csv, tsv, json or jsonl when the "
                                                                             "file name does not tell it.")
    columns = serializers.CharField(required=False, allow_blank=True,
                                    help_text="Column mapping, e.g. `mturk,label=Answer.choice`.")
    label_map = serializers.CharField(required=False, allow_blank=True)
    source = serializers.CharField(required=False, allow_blank=True)  # type: ignore[assignment]


class ImportCountsOut(serializers.Serializer):
    """The counts of an import done at once: items (``created``, ``updated``, ``unchanged``,
    ``existing``) or crowd results (``annotations``, ``items_created`` …)."""

    created = serializers.IntegerField(required=False)
    updated = serializers.IntegerField(required=False)
    unchanged = serializers.IntegerField(required=False)
    existing = serializers.IntegerField(required=False)
    annotations = serializers.IntegerField(required=False)
    items_created = serializers.IntegerField(required=False)
    items_existing = serializers.IntegerField(required=False)
    workers_created = serializers.IntegerField(required=False)
    workers_existing = serializers.IntegerField(required=False)
    warnings = serializers.ListField(child=serializers.CharField(), required=False,
                                     help_text="What the import did not refuse but staff should know, e.g. groups "
                                               "of real items without a gold question.")


class ImportAcceptedOut(ImportJobSerializer):
    url = serializers.URLField(help_text="Poll it for the job's progress.")

    class Meta(ImportJobSerializer.Meta):
        fields = [*ImportJobSerializer.Meta.fields, "url"]


IMPORT_RESPONSES = {
    200: OpenApiResponse(ImportCountsOut, "Imported at once; nothing was created (every row an update or "
                                          "unchanged)."),
    201: OpenApiResponse(ImportCountsOut, "Imported at once: the counts."),
    202: OpenApiResponse(ImportAcceptedOut, "A larger file: the import job to poll (also in `Location`)."),
    400: error("Nothing was imported: every bad row with its line and field, or the field at fault "
               "(no `file`, an option out of range, a file over the upload limit).", RowErrors),
}


class MediaUploadOut(serializers.Serializer):
    created = serializers.IntegerField()
    replaced = serializers.IntegerField()
    skipped = serializers.IntegerField()


class MediaInUseOut(serializers.Serializer):
    detail = serializers.CharField()
    items = serializers.ListField(child=serializers.CharField(), help_text="External ids of the items using it.")


# GET /api/projects/<slug>/annotations/ (annotation.api.views.AnnotationExport): a download.
EXPORT_SCHEMA = extend_schema(
    tags=["exports"], operation_id="annotations_export", summary="The project's raw annotations",
    parameters=[
        OpenApiParameter("fmt", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=list(FORMATS), default="json",
                         description="The download's format."),
        OpenApiParameter("all", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False,
                         description="`1` adds rejected and uncounted late answers; any other value is ignored."),
        OpenApiParameter("include_blocked", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False,
                         enum=["0", "1", "true", "false"],
                         description="`1` adds the answers of workers blocked in the project, which leave the "
                                     "data while the project's option says so; the response header "
                                     "`X-Blocked-Workers-Excluded` says how many workers' answers are left out."),
    ],
    responses={
        (200, "application/json"): OpenApiResponse(
            {"type": "array", "items": {"type": "object", "additionalProperties": {}}},
            "One object per annotation, with the task type's export columns."),
        (200, "text/csv"): OpenApiResponse({"type": "string"}, "A header row, then one row per annotation."),
        (200, "application/x-ndjson"): OpenApiResponse({"type": "string"}, "One JSON object per line."),
        400: field_errors("`fmt` names no known format, or `include_blocked` is no yes or no."),
    },
)


class AuditEntryOut(serializers.Serializer):
    id = serializers.IntegerField()
    at = serializers.DateTimeField()
    actor = serializers.CharField(allow_blank=True)
    project = serializers.CharField(allow_blank=True)
    action = serializers.CharField()
    target = serializers.CharField(allow_blank=True)
    details = serializers.JSONField()


class AuditOut(serializers.Serializer):
    entries = AuditEntryOut(many=True)
    next_before = serializers.IntegerField(allow_null=True, help_text="Pass as `?before=` for the next page; "
                                                                      "null on the last.")
