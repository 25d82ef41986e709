"""Django admin of projects, with their pages to import items and crowd results and create
annotators (a task type's own pages, e.g. pair generation, are mounted here from its app), and
of the import jobs those pages start (audio files: ``annotation.admin.media``). State changes go
through the services, never through raw model saves."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django_htmx.http import HttpResponseClientRefresh

from annotation.admin.forms import AnnotatorsForm, CrowdImportForm, ItemImportForm
from annotation.admin.media import ProjectMediaPages
from annotation.admin.task_options import (
    is_option_field,
    options_from_form,
    other_options_of,
    project_form_with_options,
)
from annotation.gold_columns import CHECK_FIELD_DOCS
from annotation.importers import ImportFailed
from annotation.models import ImportJob, Project
from annotation.providers import provider_of
from annotation.services.accounts import annotators_create
from annotation.services.crowd_results import COMMON_FIELD_DOCS
from annotation.services.imports import import_job_cancel, import_job_restart, import_upload
from annotation.services.projects import project_created_record, project_settings_save
from annotation.task_types import get_task_type, task_types
from annotation.task_types.base import TaskType
from annotation.uploads import upload_form_is_valid
from annotation.wording import count_of
from jobs.selectors import dead_job_error, is_dead


@admin.register(Project)
class ProjectAdmin(ProjectMediaPages, admin.ModelAdmin):
    # A URL typed without a scheme is an https one (what marketplaces hand out).
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ["name", "slug", "task_type", "redundancy", "state", "created_at"]
    list_filter = ["state", "task_type"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    # Searched, not listed: a platform has thousands of accounts.
    autocomplete_fields = ["members"]
    readonly_fields = ["created_by", "created_at"]

    @staticmethod
    def chosen_task(request, obj=None) -> TaskType | None:
        """The project's task type; on the add form the one chosen (sent, or asked for with
        ``?task_type=…`` when the type is picked on the page), if any."""
        slug = obj.task_type if obj is not None else request.POST.get("task_type") or request.GET.get("task_type")
        return {t.slug: t for t in task_types()}.get(slug or "")

    def get_form(self, request, obj=None, change=False, **kwargs):
        # A project's task-type options are the fields of the type's options form; records the
        # form does not know (such as pair generations) are shown apart, read-only, and kept.
        task = self.chosen_task(request, obj)
        if task is not None and task.options_form is not None:
            kwargs["form"] = project_form_with_options(kwargs.get("form", self.form), task)
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None and "task_type" in form.base_fields:
            # Choosing a type asks this page for that type's options and swaps their fieldset in;
            # without JavaScript they come on saving (see ``task_options``).
            form.base_fields["task_type"].widget.attrs.update({
                "hx-get": reverse("admin:annotation_project_add"), "hx-trigger": "change",
                "hx-select": "fieldset.task-options", "hx-target": "fieldset.task-options", "hx-swap": "outerHTML",
            })
        return form

    def get_fieldsets(self, request, obj=None):
        fields = self.get_fields(request, obj)
        options = [f for f in fields if is_option_field(f)]
        task = self.chosen_task(request, obj)
        if task is None:
            hint = "Choose a task type: its options are shown here."
        elif task.options_form is None:
            hint = f"The {task.name} task type has no options."
        else:
            hint = ""
        return [(None, {"fields": [f for f in fields if f not in options]}),
                ("Task-type options", {"fields": options, "classes": ["task-options"], "description": hint})]

    def get_readonly_fields(self, request, obj=None):
        # The typed options are the fields of their own section; what else the options record
        # holds (records such as pair generations, keys of no field) is shown once, read-only.
        extra = ["other_options"] if obj is not None and other_options_of(obj) else []
        return [*super().get_readonly_fields(request, obj), *extra]

    def get_exclude(self, request, obj=None):
        # Never a raw JSON box: saving merges the typed options into the record (``save_model``),
        # so keys without a field stay as they are.
        return [*(super().get_exclude(request, obj) or []), "options"]

    @admin.display(description="Other option records")
    def other_options(self, obj: Project) -> str:
        return json.dumps(other_options_of(obj), ensure_ascii=False)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        project = Project.objects.filter(pk=object_id).only("task_type").first()
        task = get_task_type(project.task_type) if project else None
        tools = {"item_tools": task.item_tools if task else (), "admin_tools": task.admin_tools() if task else ()}
        full = Project.objects.filter(pk=object_id).first()
        provider = provider_of(full) if full is not None and full.external_entry else None
        if full is not None and provider is not None:
            # The link to paste into the panel, built by the project's provider.
            start = request.build_absolute_uri(reverse("start", args=[full.slug]))
            tools["study_link"] = provider.study_link(project=full, start_url=start)
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **tools})

    def save_model(self, request, obj, form, change):
        obj.options = options_from_form(obj, form.cleaned_data)
        if not change:
            obj.created_by = request.user
            with transaction.atomic():
                super().save_model(request, obj, form, change)
                project_created_record(project=obj, actor=request.user)
            return
        project_settings_save(project=obj, actor=request.user)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/import/", view(self.import_view), name="annotation_project_import"),
            path("<int:pk>/annotators/", view(self.annotators_view), name="annotation_project_annotators"),
            path("<int:pk>/crowd/", view(self.crowd_view), name="annotation_project_crowd"),
            path("<int:pk>/imports/<int:job_id>/", view(self.import_job_view), name="annotation_project_import_job"),
        ] + [url for task in task_types() for url in task.admin_urls(self)] + super().get_urls()

    def tool_page(self, request, project, title, form, *, template="admin/annotation/project/tool.html", **extra):
        ctx = {**self.admin_site.each_context(request), "opts": self.model._meta, "original": project,
               "title": title, "form": form, "project": project, **extra}
        return TemplateResponse(request, template, ctx)

    def require(self, request, perm: str):
        """Refuse a user without the permission (the project's tool pages check their own)."""
        if not request.user.has_perm(perm):
            raise PermissionDenied

    @staticmethod
    def require_tool(project: Project, tool: str) -> None:
        """A project tool of the platform (``TaskType.admin_tools``) exists only for the types
        that declare it: for the others its page is not found, as its link is not shown."""
        task = get_task_type(project.task_type)
        if tool not in task.admin_tools():
            raise Http404(f"The {task.name} task type has no {tool} page.")

    def _upload_view(self, request, pk: int, *, kind: str, perm: str, form_class, title: str, fields):
        """The item and crowd-result import pages: small files are imported at once, larger
        ones by a job whose page follows its progress."""
        self.require(request, perm)
        project = get_object_or_404(Project, pk=pk)
        form = form_class(request.POST or None, request.FILES or None)
        errors = None
        if request.method == "POST" and upload_form_is_valid(request, form):
            data = dict(form.cleaned_data)
            upload = data.pop("file")
            try:
                outcome = import_upload(project=project, kind=kind, upload=upload, options=data, user=request.user)
            except ImportFailed as exc:
                errors = exc
            else:
                if outcome.job is not None:
                    return redirect(reverse("admin:annotation_project_import_job", args=[project.pk, outcome.job.pk]))
                messages.success(request, f"Imported {upload.name}: {_counts(outcome.result)}.")
                for warning in (outcome.result or {}).get("warnings", []):
                    messages.warning(request, warning)
                return redirect(reverse("admin:annotation_project_change", args=[project.pk]))
        return self.tool_page(request, project, title, form, errors=errors, fields=fields, submit="Import")

    def import_view(self, request, pk: int):
        project = get_object_or_404(Project, pk=pk)
        return self._upload_view(request, pk, kind=ImportJob.Kind.ITEMS, perm="annotation.add_item",
                                 form_class=ItemImportForm, title=f"Import items into {project}",
                                 fields=[*get_task_type(project.task_type).import_fields, *CHECK_FIELD_DOCS])

    def crowd_view(self, request, pk: int):
        project = get_object_or_404(Project, pk=pk)
        self.require_tool(project, "crowd")
        return self._upload_view(request, pk, kind=ImportJob.Kind.CROWD, perm="annotation.add_annotation",
                                 form_class=CrowdImportForm, title=f"Import crowd results into {project}",
                                 fields=[*get_task_type(project.task_type).crowd_fields, *COMMON_FIELD_DOCS])

    def import_job_view(self, request, pk: int, job_id: int):
        """An import job's page: its progress while it runs (polled), then its counts or the
        line-and-field errors of a refused file."""
        self.require(request, "annotation.view_importjob")
        job = get_object_or_404(ImportJob.objects.select_related("project"), pk=job_id, project_id=pk)
        if request.method == "POST":
            self.require(request, "annotation.change_importjob")
            try:
                if request.POST.get("action") == "restart":
                    import_job_restart(job=job)
                else:
                    import_job_cancel(job=job, user=request.user)
            except ValueError as exc:
                messages.error(request, str(exc))
            return redirect(reverse("admin:annotation_project_import_job", args=[pk, job.pk]))
        ctx = {**self.admin_site.each_context(request), "opts": self.model._meta, "original": job.project,
               "project": job.project, "job": job, "title": f"Import of {job.filename}",
               "counts": _counts(job.result) if job.result else "",
               "warnings": (job.result or {}).get("warnings", []),
               "again_url": reverse(_AGAIN.get(job.kind, "admin:annotation_project_change"), args=[pk]),
               "can_change": request.user.has_perm("annotation.change_importjob"),
               # Read from the heartbeat: looking writes nothing (the scheduler marks it failed).
               "dead": is_dead(job=job), "dead_error": dead_job_error()}
        if request.htmx:
            if job.is_finished or ctx["dead"]:
                return HttpResponseClientRefresh()
            return TemplateResponse(request, "admin/annotation/project/import_job.html#progress", ctx)
        return TemplateResponse(request, "admin/annotation/project/import_job.html", ctx)

    def annotators_view(self, request, pk: int):
        self.require(request, "auth.add_user")
        project = get_object_or_404(Project, pk=pk)
        form = AnnotatorsForm(request.POST or None)
        errors, created = None, None
        if request.method == "POST" and form.is_valid():
            try:
                accounts = annotators_create(names_text=form.cleaned_data["names"], mode=form.cleaned_data["mode"],
                                             project=project, actor=request.user)
            except ImportFailed as exc:
                errors = exc
            else:
                created = {"new": [a for a in accounts if not a.existing], "existing": [a for a in accounts if a.existing]}
        invite_base = request.build_absolute_uri("/invite/")
        return self.tool_page(request, project, f"Create annotators for {project}", form, errors=errors,
                          created=created, invite_base=invite_base, submit="Create accounts")


# Where "Import another file" leads from an import job's page; a task type's own files go back to
# the project, whose page lists the type's import tools.
_AGAIN: dict[str, str] = {ImportJob.Kind.ITEMS: "admin:annotation_project_import",
                          ImportJob.Kind.CROWD: "admin:annotation_project_crowd",
                          ImportJob.Kind.MEDIA: "admin:annotation_project_media"}


def _counts(result: dict | None) -> str:
    """An import's outcome in words."""
    if not result:
        return ""
    if "annotations" in result:
        return (f"{count_of(result['annotations'], 'annotation', 'annotations')}; items {result['items_created']} new, "
                f"{result['items_existing']} existing; workers {result['workers_created']} new, {result['workers_existing']} known")
    if "replaced" in result:
        skipped = f"; {result['skipped']} other files left out" if result.get("skipped") else ""
        return f"{result['created']} new, {result['replaced']} replaced audio files{skipped}"
    counts = f"{result['created']} new, {result['updated']} updated, {result['unchanged']} unchanged items"
    # A build that may be run again keeps the items the project has (TaskType.files_imports).
    return counts + (f", {result['existing']} already in the project" if "existing" in result else "")


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "kind", "filename", "status", "error_count", "created_by", "created_at", "finished_at"]
    list_filter = ["status", "kind", "project"]
    readonly_fields = [f.name for f in ImportJob._meta.fields]

    def has_add_permission(self, request):
        return False
