"""API of the project admin's add and change forms: create a project of a task type, and read
or change its settings, options and state (``annotation.services.projects``, the services the
admin saves through). The quality settings are ``api-quality``; members join by code
(``api-join``) or are created (``api-annotators``)."""

from __future__ import annotations

from django.core.exceptions import ValidationError as ModelValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.lookups import project_or_404
from annotation.api.parsers import SafeJSONParser, body_fields
from annotation.api.refusals import model_errors, refusals
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.unseen import unseen
from annotation.api.views import has_perm
from annotation.models import Project
from annotation.services.projects import ProjectSettings, project_change, project_create
from annotation.task_types import UnknownTaskType

SETTINGS = list(ProjectSettings.__annotations__)


class StaffProjectSettingsSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["slug", "name", "task_type", "options", *SETTINGS, "created_at"]


class ProjectSettingsChangeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["name", "options", *SETTINGS]
        extra_kwargs = {name: {"required": False} for name in fields}


class ProjectCreateRequestSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["name", "slug", "options", *SETTINGS]
        extra_kwargs = {name: {"required": False} for name in ["options", *SETTINGS]}


def _refused(exc: ModelValidationError) -> ValidationError:
    return ValidationError(model_errors(exc, Project))


class ProjectCreate(APIView):
    """POST ``{"name", "slug", "options": {...}, ...settings}``: a new project of the task type
    in the path (options cleaned by the type's options form, defaults filled in); 201 with its
    settings, 400 naming each field at fault."""

    permission_classes = [has_perm("annotation.add_project")]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="project_create", tags=["projects"], request=ProjectCreateRequestSerializer,
                   responses={201: StaffProjectSettingsSerializer, **refusals(400, 404)})
    def post(self, request: AuthenticatedApiRequest, task_type: str) -> Response:
        data = dict(body_fields(request, "the project"))
        unknown = sorted(set(data) - {"name", "slug", "options", *SETTINGS})
        if unknown:
            raise ValidationError({name: "not a field of a new project" for name in unknown})
        missing = [name for name in ("name", "slug") if not isinstance(data.get(name), str) or not data[name]]
        if missing:
            raise ValidationError({name: "required, as text" for name in missing})
        options = data.pop("options", None)
        if options is not None and not isinstance(options, dict):
            raise ValidationError({"options": "must be an object"})
        try:
            project = project_create(task_type=task_type, options=options, created_by=request.user, **data)
        except UnknownTaskType:
            raise unseen() from None
        except ValueError as exc:
            raise ValidationError({"options": str(exc)}) from None
        except ModelValidationError as exc:
            raise _refused(exc) from None
        return Response(StaffProjectSettingsSerializer(project).data, status=status.HTTP_201_CREATED)


class ProjectSettingsView(APIView):
    """GET: the project's settings, options and state. PATCH any of them (not its slug or task
    type): the admin's checks and its audit entry, setting by setting; 400 naming each field at
    fault, nothing changed then."""

    permission_classes = [has_perm("annotation.view_project")]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="project_settings_read", responses={200: StaffProjectSettingsSerializer,
                                                                    **refusals(404)})
    def get(self, request: Request, slug: str) -> Response:
        return Response(StaffProjectSettingsSerializer(project_or_404(slug)).data)

    @extend_schema(operation_id="project_settings_change", request=ProjectSettingsChangeSerializer,
                   responses={200: StaffProjectSettingsSerializer, **refusals(400, 404)})
    def patch(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = project_or_404(slug)
        if not request.user.has_perm("annotation.change_project"):
            raise PermissionDenied("You need the permission annotation.change_project.")
        try:
            project = project_change(project=project, values=body_fields(request, "the settings"), actor=request.user)
        except ModelValidationError as exc:
            raise _refused(exc) from None
        return Response(StaffProjectSettingsSerializer(project).data)
