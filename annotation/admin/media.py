"""Admin pages of a project's audio files: the project's *Upload audio* page, and the list of
stored files, where deleting a file deletes its stored copy too."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils.html import format_html

from annotation.admin.forms import MediaUploadForm
from annotation.importers import ImportFailed
from annotation.media.formats import AUDIO_SUFFIXES, KNOWN_FORMATS
from annotation.media.sources import MANIFEST_FIELDS, max_file_bytes
from annotation.models import MediaFile, Project
from annotation.selectors.media import media_files_of, media_items_using
from annotation.services import MediaInUse, media_files_delete
from annotation.services.media.files import MediaImportResult
from annotation.services.media.jobs import media_upload_import
from annotation.uploads import limit_text, upload_form_is_valid
from annotation.views.media.serving import media_url

# Files listed on the upload page; the admin list of media files has them all.
LISTED = 200


class ProjectMediaPages:
    """The *Upload audio* page of ProjectAdmin (which provides ``tool_page`` and ``require_tool``)."""

    tool_page: Callable[..., HttpResponse]
    require_tool: Callable[[Project, str], None]

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("<int:pk>/media/", view(self.media_view), name="annotation_project_media"), *super().get_urls()]

    def media_view(self, request, pk: int):
        """Upload a zip of audio files or one file; the page lists the project's files. Who may
        add items may add the audio they refer to. A zip, or a file larger than
        IMPORT_INLINE_MAX_BYTES, is imported by a job, whose page the upload leads to."""
        if not request.user.has_perm("annotation.add_item"):
            raise PermissionDenied
        project = get_object_or_404(Project, pk=pk)
        self.require_tool(project, "media")
        form = MediaUploadForm(request.POST or None, request.FILES or None)
        errors = None
        if request.method == "POST" and upload_form_is_valid(request, form):
            data = form.cleaned_data
            try:
                outcome = media_upload_import(project=project, upload=data["file"], key=data["key"] or None,
                                              on_duplicate=data["on_duplicate"], user=request.user)
            except ImportFailed as exc:
                errors = exc
            else:
                if outcome.job is not None:
                    # A zip or a larger file: its job's page follows the progress.
                    return redirect(reverse("admin:annotation_project_import_job", args=[project.pk, outcome.job.pk]))
                result = cast(MediaImportResult, outcome.result)
                skipped = f"; {result.skipped} other files left out" if result.skipped else ""
                messages.success(request, f"Stored {data['file'].name}: {result.created} new, "
                                          f"{result.replaced} replaced audio files{skipped}.")
                return redirect(reverse("admin:annotation_project_media", args=[project.pk]))
        files = media_files_of(project=project)
        return self.tool_page(
            request, project, f"Upload audio to {project}", form, template="admin/annotation/project/media.html",
            errors=errors, fields=MANIFEST_FIELDS, submit="Upload", count=files.count(), files=files[:LISTED],
            changelist=reverse("admin:annotation_mediafile_changelist") + f"?project__id__exact={project.pk}",
            suffixes=AUDIO_SUFFIXES, formats=KNOWN_FORMATS, max_file=limit_text(max_file_bytes()),
            max_total=limit_text(settings.IMPORT_MAX_DECOMPRESSED_BYTES), max_members=settings.MEDIA_MAX_ZIP_MEMBERS,
            inline_max=settings.IMPORT_INLINE_MAX_BYTES,
        )


@admin.register(MediaFile)
class MediaFileAdmin(admin.ModelAdmin):
    """Files are added on the project's *Upload audio* page, never here."""

    list_display = ["key", "project", "content_type", "size", "created_at", "listen"]
    list_filter = ["project", "content_type"]
    search_fields = ["key", "sha256"]
    # The stored name is shown as text: the storage has no public URL to link to.
    readonly_fields = ["project", "key", "listen", "content_type", "size", "sha256", "stored_as", "created_at"]
    fields = [*readonly_fields]
    list_select_related = ["project"]

    @admin.display(description="file")
    def listen(self, obj: MediaFile) -> str:
        return format_html('<a href="{}">open</a>', media_url(obj.project, obj.key))

    @admin.display(description="stored as")
    def stored_as(self, obj: MediaFile) -> str | None:
        return obj.file.name

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_deleted_objects(self, objs, request):
        """Files that items still use are listed as protected: the admin then deletes nothing
        and names the items, on the delete page and for the "delete selected" action alike."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        files = list(objs)
        uses = media_items_using(files=files)
        for media in files:
            items = uses.get(media.pk)
            if items:
                shown = ", ".join(items[:MediaInUse.NAMED])
                more = f" and {len(items) - MediaInUse.NAMED} more" if len(items) > MediaInUse.NAMED else ""
                protected = [*protected, f"{media.key} is used by item{'s' if len(items) > 1 else ''} {shown}{more}"]
        return deleted, counts, perms_needed, protected

    def delete_model(self, request, obj):
        media_files_delete(files=[obj])

    def delete_queryset(self, request, queryset):
        media_files_delete(files=queryset)
