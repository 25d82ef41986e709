"""API of a project's recruiting panel: ``GET`` its settings with the study link to paste into
the panel (staff who may see the project), ``PATCH`` any of them (staff who may change it), with
the checks and the audit entry of the admin form."""

from __future__ import annotations

from django.core.exceptions import ValidationError as ModelValidationError
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.lookups import project_or_404 as _project
from annotation.api.parsers import SafeJSONParser
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.views import has_perm
from annotation.models import Project
from annotation.providers import NO_PANEL, provider_of
from recruiting.panels import UnknownPanel, panel_choices, panel_setup
from recruiting.services.panel_settings import PANEL_SETTINGS, project_panel_update


class PanelSettingsSerializer(serializers.Serializer):
    """The settings a staff member may change; a PATCH sends any of them."""

    external_entry = serializers.BooleanField(required=False, help_text="Panel links are taken at all.")
    panel = serializers.ChoiceField(choices=[(NO_PANEL, "None"), *panel_choices()], required=False,
                                    allow_blank=True,
                                    help_text="A preset's slug, or custom; empty: none (no study link is taken).")
    worker_param = serializers.CharField(max_length=60, required=False, allow_blank=True,
                                         help_text="Custom panel: the parameter carrying the worker id.")
    custom_source = serializers.CharField(max_length=40, required=False, allow_blank=True,
                                          help_text="Custom panel: the name its workers are known by.")
    extra_params = serializers.CharField(max_length=300, required=False, allow_blank=True,
                                         help_text="Custom panel: other parameters to keep, comma-separated.")
    completion_code = serializers.CharField(max_length=64, required=False, allow_blank=True)
    completion_url = serializers.CharField(max_length=500, required=False, allow_blank=True,
                                           help_text="Template with {code}, {worker_id}, {PARAMETER}; "
                                                     "empty: the panel's own.")


class PanelConfigSerializer(serializers.Serializer):
    settings = PanelSettingsSerializer()
    study_link = serializers.CharField(allow_null=True,
                                       help_text="The link to paste into the panel; null without a panel.")
    worker_source = serializers.CharField(allow_null=True, help_text="The first half of a worker's identity (panel "
                                                                     "slug or custom name); null without a panel.")
    recorded_params = serializers.ListField(child=serializers.CharField(),
                                            help_text="Parameters kept with each answer; the first carries the "
                                                      "worker id.")
    completion_url_template = serializers.CharField(help_text="The completion URL template in use "
                                                              "(the project's, else the panel's; may be empty).")


def _config(request: Request, project: Project) -> dict:
    settings = {name: getattr(project, name) for name in PANEL_SETTINGS}
    provider = provider_of(project)
    if provider is None:
        # No panel: no link to paste, nobody arrives by one.
        return {"settings": settings, "study_link": None, "worker_source": None, "recorded_params": [],
                "completion_url_template": project.completion_url or ""}
    setup = provider.link_setup(project=project)
    start = request.build_absolute_uri(reverse("start", args=[project.slug]))
    try:
        template = panel_setup(project).completion_url
    except UnknownPanel:
        template = project.completion_url or ""  # a provider of another app: its own way back
    return {"settings": settings, "study_link": provider.study_link(project=project, start_url=start),
            "worker_source": setup.source, "recorded_params": list(setup.params),
            "completion_url_template": template}


_ERRORS = {403: OpenApiResponse(description="Missing the permission annotation.view_project "
                                            "(or annotation.change_project to change)."),
           404: OpenApiResponse(description="No such project.")}


class ProjectPanel(APIView):
    permission_classes = [has_perm("annotation.view_project")]
    parser_classes = [SafeJSONParser, FormParser]

    @extend_schema(operation_id="project_panel_read", summary="A project's recruiting panel",
                   responses={200: PanelConfigSerializer, **_ERRORS})
    def get(self, request: Request, slug: str) -> Response:
        return Response(_config(request, _project(slug)))

    @extend_schema(operation_id="project_panel_update", summary="Change a project's recruiting panel",
                   request=PanelSettingsSerializer,
                   responses={200: PanelConfigSerializer,
                              400: OpenApiResponse(description="Each refused field with why; nothing changed."),
                              **_ERRORS})
    def patch(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = _project(slug)
        if not request.user.has_perm("annotation.change_project"):
            raise PermissionDenied("You need the permission annotation.change_project.")
        given = PanelSettingsSerializer(data=request.data, partial=True)
        given.is_valid(raise_exception=True)
        unknown = sorted(set(request.data) - set(PANEL_SETTINGS)) if hasattr(request.data, "keys") else []
        if unknown:
            raise ValidationError({name: "Not a panel setting." for name in unknown})
        try:
            project = project_panel_update(project=project, values=given.validated_data, actor=request.user)
        except ModelValidationError as exc:
            raise ValidationError(exc.message_dict) from None
        return Response(_config(request, project))
