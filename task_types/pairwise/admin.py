"""The admin of the argument corpus (topics and arguments), and the page that adds all pairs of
a topic's arguments to a project, mounted under the project admin by the task-type registry
(``TaskType.admin_urls``)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from annotation.importers import ImportFailed
from annotation.models import Project
from annotation.wording import count_of
from task_types.pairwise.corpus import pairs_generate
from task_types.pairwise.models import Argument, Topic


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["external_id", "prompt", "stance"]
    search_fields = ["external_id", "prompt"]


@admin.register(Argument)
class ArgumentAdmin(admin.ModelAdmin):
    list_display = ["external_id", "topic", "author", "word_count"]
    list_filter = ["topic"]
    search_fields = ["external_id", "text"]


class PairsForm(forms.Form):
    topic = forms.ModelChoiceField(queryset=Topic.objects.order_by("external_id"))
    seed = forms.IntegerField(initial=2016, help_text="Decides which argument is shown as A1, per pair.")
    min_words = forms.IntegerField(required=False, min_value=0, initial=10,
                                   help_text="Leave out arguments shorter than this (the paper used 10).")
    max_words = forms.IntegerField(required=False, min_value=1, initial=110,
                                   help_text="Leave out arguments longer than this (the paper used 110).")
    sample = forms.IntegerField(required=False, min_value=2,
                                help_text="Keep only this many arguments, drawn at random (the paper drew 25–35).")


def pairs_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = PairsForm(request.POST or None)
    errors = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            result = pairs_generate(project=project, topic=data["topic"], seed=data["seed"],
                                    min_words=data["min_words"], max_words=data["max_words"], sample=data["sample"],
                                    actor=request.user)
        except ImportFailed as exc:
            errors = exc
        else:
            messages.success(request, f"{count_of(result.pairs, 'pair', 'pairs')} of {count_of(result.arguments, 'argument', 'arguments')}: "
                             f"{count_of(result.imported.created, 'new item', 'new items')}, {result.skipped_existing} already in the project.")
            return redirect(reverse("admin:annotation_project_change", args=[project.pk]))
    return model_admin.tool_page(request, project, f"Generate argument pairs for {project}", form, errors=errors, submit="Generate pairs")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/pairs/", view(partial(pairs_view, model_admin)), name="annotation_project_pairs")]
