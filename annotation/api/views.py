"""REST API: projects, items and their import, the annotation loop, exports and bonuses."""

from __future__ import annotations

from typing import Any, cast

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser, body_fields
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import conflict
from annotation.api.schema.loop import SUBMIT_SCHEMA, NextOut
from annotation.api.schema.staff import (
    EXPORT_SCHEMA,
    IMPORT_RESPONSES,
    CrowdImportIn,
    ProgressOut,
    TaskTypeOut,
)
from annotation.api.serializers import (
    ImportJobSerializer,
    ImportSerializer,
    ItemSerializer,
    ProjectSerializer,
    annotation_data,
    assignment_data,
)
from annotation.api.unseen import unseen
from annotation.authenticity import signals_clean
from annotation.exports import FORMATS, export_response
from annotation.importers import ImportFailed
from annotation.models import Assignment, ImportJob, Item, Project
from annotation.quality_port import api_feedback, api_next
from annotation.selectors.annotator import consent_pending, presentation, project_access
from annotation.selectors.progress import project_progress, projects_for_worker
from annotation.services import WorkflowError, annotation_submit, assignment_next
from annotation.services.audit import audit_record
from annotation.services.errors import NotYours
from annotation.services.imports import import_job_cancel, import_upload
from annotation.task_types import task_types
from annotation.task_types.base import AnswerInvalid
from annotation.uploads import refuse_oversized_upload


def has_perm(codename: str) -> type[BasePermission]:
    class HasPerm(BasePermission):
        message = f"You need the permission {codename}."

        def has_permission(self, request, view) -> bool:
            return bool(request.user and request.user.is_authenticated and request.user.has_perm(codename))

    return HasPerm


def _project(slug: str) -> Project:
    project = Project.objects.filter(slug=slug).first()
    if project is None:
        raise unseen()
    return project


def _visible_project(request: AuthenticatedApiRequest, slug: str) -> Project:
    """The project, when the caller may work on it or look at it; a private project they are
    no member of is the same 404 as one that does not exist."""
    project = _project(slug)
    if not project_access(project=project, user=request.user):
        raise unseen()
    return project


@extend_schema_view(get=extend_schema(
    tags=["projects"], operation_id="projects_list",
    summary="Projects: every one for staff who may view projects, a worker's own otherwise"))
class ProjectList(generics.ListAPIView):
    serializer_class = ProjectSerializer

    def get_queryset(self):
        user = self.request.user
        if user.has_perm("annotation.view_project"):
            return Project.objects.order_by("name")
        return projects_for_worker(worker=user)


@extend_schema_view(get=extend_schema(tags=["projects"], operation_id="project_retrieve",
                                      summary="A project's settings"))
class ProjectDetail(generics.RetrieveAPIView):
    serializer_class = ProjectSerializer
    permission_classes = [has_perm("annotation.view_project")]
    lookup_field = "slug"
    queryset = Project.objects.all()


class ProjectProgressView(APIView):
    permission_classes = [has_perm("annotation.view_project")]

    @extend_schema(tags=["projects"], operation_id="project_progress", summary="A project's progress figures",
                   responses={200: ProgressOut})
    def get(self, request: Request, slug: str) -> Response:
        progress = project_progress(project=_project(slug))
        return Response({**progress.__dict__, "percent": progress.percent})


@extend_schema_view(get=extend_schema(tags=["items"], operation_id="items_list",
                                      summary="A project's items, in import order"))
class ItemList(generics.ListAPIView):
    serializer_class = ItemSerializer
    permission_classes = [has_perm("annotation.view_item")]

    def get_queryset(self):
        return Item.objects.filter(project=_project(self.kwargs["slug"])).order_by("position", "pk")


def _import_response(request: Request, project: Project, kind: str, options: dict) -> Response:
    """201/200 with the counts of a small file imported at once; 202 with the job that imports a
    larger one (poll its ``url``); 400 listing line, field and message of every bad row, or
    naming the upload limit."""
    refuse_oversized_upload(request)
    upload = body_fields(request, "the file").get("file")
    if upload is None or not hasattr(upload, "read"):
        raise ValidationError({"file": "send the file as multipart field 'file'"})
    try:
        outcome = import_upload(project=project, kind=kind, upload=upload, options=options, user=request.user)
    except ImportFailed as exc:
        return Response(
            {"detail": "Nothing was imported.", "errors": [e.as_dict() for e in exc.errors], "error_count": exc.total},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if outcome.job is not None:
        url = reverse("api-import-job", args=[outcome.job.pk])
        body = {**ImportJobSerializer(outcome.job).data, "url": request.build_absolute_uri(url)}
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": url})
    # import_upload gives a result when it queues no job.
    result = cast(dict[str, Any], outcome.result)
    created = result.get("created", result.get("annotations", 0))
    return Response(result, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ItemImport(APIView):
    """POST a file (multipart field ``file``); ``format`` (csv, tsv, json, jsonl) when the file
    name does not tell it, ``on_duplicate`` reject (default) or update. Nothing is written unless
    every row is valid; a 400 lists the bad rows with line and field. Files above a small size are
    imported by a background job: the answer is then 202 with the job to poll."""

    permission_classes = [has_perm("annotation.add_item")]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(tags=["items"], operation_id="items_import", summary="Import items from a file",
                   request={"multipart/form-data": ImportSerializer,
                            "application/x-www-form-urlencoded": ImportSerializer},
                   responses=IMPORT_RESPONSES)
    def post(self, request: Request, slug: str) -> Response:
        refuse_oversized_upload(request)
        form = ImportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        options = {"format": form.validated_data.get("format"), "on_duplicate": form.validated_data["on_duplicate"]}
        return _import_response(request, _project(slug), ImportJob.Kind.ITEMS, options)


class CrowdImport(APIView):
    """POST a results file collected elsewhere (multipart ``file``; optional ``format``,
    ``columns`` such as ``mturk,label=Answer.choice``, ``label_map``, ``source``); like item
    import, large files become a background job (202)."""

    permission_classes = [has_perm("annotation.add_annotation")]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(tags=["items"], operation_id="crowd_results_import",
                   summary="Import answers collected elsewhere", request={"multipart/form-data": CrowdImportIn,
                                                                          "application/x-www-form-urlencoded": CrowdImportIn},
                   responses=IMPORT_RESPONSES)
    def post(self, request: Request, slug: str) -> Response:
        fields = body_fields(request, "the options")
        options = {key: fields.get(key) or "" for key in ("format", "columns", "label_map", "source")}
        return _import_response(request, _project(slug), ImportJob.Kind.CROWD, options)


class ImportJobDetail(APIView):
    """An import job: status, live progress and stage, and its counts or line-and-field errors."""

    permission_classes = [has_perm("annotation.view_importjob")]

    @extend_schema(tags=["items"], operation_id="import_job_retrieve", summary="An import job",
                   responses={200: ImportJobSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(ImportJobSerializer(get_object_or_404(ImportJob, pk=pk)).data)


class ImportJobCancel(APIView):
    """POST: cancel a queued or running import; nothing of it is written."""

    permission_classes = [has_perm("annotation.change_importjob")]

    @extend_schema(tags=["items"], operation_id="import_job_cancel", summary="Cancel an import job", request=None,
                   responses={200: ImportJobSerializer, 409: conflict("the job has already ended.")})
    def post(self, request: Request, pk: int) -> Response:
        try:
            job = import_job_cancel(job=get_object_or_404(ImportJob, pk=pk), user=request.user)
        except ValueError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(ImportJobSerializer(job).data)


def _next_body(request: AuthenticatedApiRequest, project: Project) -> dict:
    """What the worker gets next in the project: an assignment with how to present it, or none
    and why."""
    if consent_pending(project=project, worker=request.user, session=request.session):
        return {"assignment": None, "reason": "consent"}
    result = assignment_next(project=project, worker=request.user)
    if result.assignment is None:
        return {"assignment": None, "reason": result.reason, **api_next(request, project, result)}
    # The variant and options tell a client how to present the item (e.g. listening rules); the
    # payload is what the task type lets this worker see.
    shown = presentation(project=project, worker=request.user, item=result.assignment.item,
                         assignment=result.assignment)
    return {"assignment": assignment_data(result.assignment, payload=shown["payload"]), "resumed": result.resumed,
            "variant": shown["variant"], "options": shown["options"], **api_next(request, project, result)}


class AssignmentNext(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["annotating"], operation_id="assignment_next", request=None,
                   summary="The worker's current or next assignment, or why there is none",
                   responses={200: NextOut})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        return Response(_next_body(request, _visible_project(request, slug)))


class AssignmentSubmit(APIView):
    """Submit an answer (JSON or form fields of the task type). Idempotent: repeating it returns
    the stored annotation with 200 instead of 201; a different answer to an item already answered
    is not stored and gets 409 with the stored one. With ``?next=1`` the answer also carries what
    ``assignments/next/`` would (under ``next``), so a client needs one request per item. An
    optional ``signals`` object (``pasted``, ``hidden_ms``, ``blurs``, ``webdriver``) is kept with
    the answer as evidence for staff (``annotation.authenticity``); it never refuses an answer."""

    permission_classes = [IsAuthenticated]
    parser_classes = [SafeJSONParser, FormParser, MultiPartParser]

    @SUBMIT_SCHEMA
    def post(self, request: AuthenticatedApiRequest, pk: int) -> Response:
        data = body_fields(request, "the answer")
        client: dict[str, Any] = {"elapsed_ms": data.get("client_elapsed_ms"), "api": True}
        signals = signals_clean(data.get("signals"))
        if signals:
            # Evidence for staff (annotation.authenticity); never a reason to refuse the answer.
            client["signals"] = signals
        try:
            outcome = annotation_submit(assignment=Assignment(pk=pk), worker=request.user, data=data,
                                        client=client)
        except (Assignment.DoesNotExist, NotYours):
            # Another worker's assignment is one that does not exist (``annotation.api.unseen``).
            raise unseen() from None
        except AnswerInvalid as exc:
            raise ValidationError(exc.errors) from None
        except WorkflowError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        if not outcome.same_answer:
            # A second client answered differently after the first one was stored: nothing was
            # saved, and the client must hear it (the revision endpoint changes an answer).
            return Response({
                "detail": "This answer was not saved: the item was already answered differently. "
                          "Change the stored answer with PUT on the `change` address.",
                "stored": annotation_data(outcome.annotation),
                "change": reverse("api-annotation", kwargs={"pk": outcome.assignment.pk}),
            }, status=status.HTTP_409_CONFLICT)
        body = {**annotation_data(outcome.annotation), "counted": outcome.counted}
        feedback = api_feedback(outcome)
        if feedback is not None:
            body["feedback"] = feedback
        if request.query_params.get("next") in ("1", "true"):
            body["next"] = _next_body(request, outcome.assignment.project)
        return Response(body, status=status.HTTP_201_CREATED if outcome.created else status.HTTP_200_OK)


class AnnotationExport(APIView):
    """Raw annotations as ``?fmt=csv|json|jsonl`` (default json); ``?all=1`` adds rejected and
    uncounted late answers; ``?include_blocked=1`` the answers of workers blocked in the project."""

    permission_classes = [has_perm("annotation.export_annotations")]

    @EXPORT_SCHEMA
    def get(self, request: AuthenticatedApiRequest, slug: str):
        project = _project(slug)
        fmt = request.query_params.get("fmt", "json")
        if fmt not in FORMATS:
            raise ValidationError({"fmt": f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}"})
        counted_only = request.query_params.get("all") != "1"
        flag = request.query_params.get("include_blocked", "0")
        if flag not in ("0", "1", "true", "false"):
            raise ValidationError({"include_blocked": f"{flag!r} is not a yes or no; use 1 or 0"})
        include_blocked = flag in ("1", "true")
        audit_record(actor=request.user, action="export", project=project, target=f"annotations.{fmt}",
                     details={"format": fmt, "all": not counted_only, "include_blocked": include_blocked,
                              "via": "api"})
        return export_response(project=project, fmt=fmt, counted_only=counted_only, include_blocked=include_blocked)


class TaskTypeList(APIView):
    """What every task type takes and gives: its answer fields (for form or JSON submits), label
    level and categories, client metrics, import fields, export columns, project options with
    their defaults, and a worked example (import records, a valid and an invalid answer)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["task types"], operation_id="task_types_list", summary="What every task type takes and gives",
                   responses={200: TaskTypeOut(many=True)})
    def get(self, request: Request) -> Response:
        return Response([_task_type_doc(t) for t in task_types()])


def _task_type_doc(task) -> dict:
    example = task.example()
    return {
        "slug": task.slug, "name": task.name, "description": task.description, "level": task.level,
        "categories": [{"value": v, "text": t} for v, t in task.categories],
        "answer_fields": [{"name": f.name, "kind": f.kind, "required": f.required, "description": f.description}
                          for f in task.answer_fields],
        "metric_fields": list(task.metric_fields),
        "import_fields": [{"name": f.name, "required": f.required, "description": f.description}
                          for f in task.import_fields],
        "export_columns": list(task.export_columns),
        "options": task.option_defaults(),
        "example": {"records": example.records, "answer": example.answer, "invalid": example.invalid,
                    "invalid_field": example.invalid_field, "options": example.options},
    }
