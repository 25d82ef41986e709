"""REST API: a project's audio files, listed and uploaded."""

from __future__ import annotations

from typing import cast

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.project_tools import job_accepted
from annotation.api.schema.errors import RowErrors, error
from annotation.api.schema.staff import ImportAcceptedOut, MediaInUseOut, MediaUploadOut
from annotation.api.views import _project, has_perm
from annotation.importers import ImportFailed
from annotation.models import MediaFile
from annotation.selectors.media import media_file_for, media_files_of
from annotation.services import MediaInUse, media_files_delete
from annotation.services.media.files import ON_DUPLICATE, MediaImportResult
from annotation.services.media.jobs import media_upload_import
from annotation.uploads import refuse_oversized_upload
from annotation.views.media.serving import media_url


class MediaFileSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = MediaFile
        fields = ["key", "content_type", "size", "sha256", "url", "created_at"]

    def get_url(self, obj: MediaFile) -> str:
        return self.context["request"].build_absolute_uri(media_url(obj.project, obj.key))


class MediaUploadSerializer(serializers.Serializer):
    file = serializers.FileField()
    key = serializers.CharField(required=False, allow_blank=True, max_length=200, trim_whitespace=False)
    on_duplicate = serializers.ChoiceField(choices=ON_DUPLICATE, default="reject")


@extend_schema_view(
    get=extend_schema(tags=["media"], operation_id="media_list", summary="The project's audio files"),
    post=extend_schema(
        tags=["media"], operation_id="media_upload", summary="Upload audio files (a zip, or one file)",
        request={"multipart/form-data": MediaUploadSerializer, "application/x-www-form-urlencoded": MediaUploadSerializer},
        responses={201: OpenApiResponse(MediaUploadOut, "A single small audio file (up to IMPORT_INLINE_MAX_BYTES), "
                                                        "stored at once: the counts."),
                   202: OpenApiResponse(ImportAcceptedOut, "A zip, or a larger file: the import job that stores the "
                                                           "files, to poll (also in `Location`). A refused upload "
                                                           "ends the job failed with every error by line and field."),
                   400: error("Nothing was stored: every bad file with its line and field, or the field at fault.",
                              RowErrors)}),
)
class MediaFiles(generics.ListAPIView):
    """GET (staff): the project's audio files, paginated. POST: multipart ``file``, a zip of
    audio files (by its manifest.csv, or keyed by file name) or one audio file with an optional
    ``key``; ``on_duplicate`` reject (default) or replace. Nothing is stored unless every file is
    audio within the limits. A single file up to IMPORT_INLINE_MAX_BYTES is stored at once: 201
    with the counts, or 400 listing line, field and message. A zip or a larger file is stored by
    an import job: 202 with the job to poll (its result has the counts, or its errors the lines
    and fields); options at fault are still refused at once with 400."""

    serializer_class = MediaFileSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_permissions(self):
        codename = "annotation.add_item" if self.request.method == "POST" else "annotation.view_item"
        return [has_perm(codename)()]

    def get_queryset(self):
        return media_files_of(project=_project(self.kwargs["slug"])).select_related("project")

    def post(self, request: Request, slug: str) -> Response:
        project = _project(slug)
        refuse_oversized_upload(request)
        form = MediaUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            outcome = media_upload_import(project=project, upload=data["file"], key=data.get("key") or None,
                                          on_duplicate=data["on_duplicate"], user=request.user)
        except ImportFailed as exc:
            return Response(
                {"detail": "Nothing was stored.", "errors": [e.as_dict() for e in exc.errors], "error_count": exc.total},
                status=status.HTTP_400_BAD_REQUEST,
            )
        if outcome.job is not None:
            return job_accepted(request, outcome.job)
        result = cast(MediaImportResult, outcome.result)
        return Response({"created": result.created, "replaced": result.replaced, "skipped": result.skipped},
                        status=status.HTTP_201_CREATED)


class MediaFileDetail(APIView):
    """DELETE (staff who may delete media files): the project's file ``key`` and its stored
    copy; 204, or 409 naming the items that still use it (``items``), deleting nothing."""

    def get_permissions(self):
        return [has_perm("annotation.delete_mediafile")()]

    @extend_schema(tags=["media"], operation_id="media_delete", summary="Delete an audio file no item uses",
                   responses={204: None, 409: OpenApiResponse(MediaInUseOut, "Items still use it; nothing deleted.")})
    def delete(self, request: Request, slug: str, key: str) -> Response:
        media = media_file_for(project=_project(slug), key=key)
        if media is None:
            raise Http404("The project has no media file with this key.")
        try:
            media_files_delete(files=[media])
        except MediaInUse as exc:
            return Response({"detail": str(exc), "items": exc.uses.get(media.key, [])}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)
