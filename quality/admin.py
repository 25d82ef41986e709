"""Quality control's part of the engine's admin pages: the project list's action that promotes
unanimously answered real items to gold questions, with a page that says what it will do before
it does it; and the known answer of a gold question or training item, shown read-only on its
item's admin page. Both are added to the engine's project and item admins, which never import
quality control."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.template.response import TemplateResponse
from django.utils.translation import ngettext

import annotation.admin  # noqa: F401  (registers the project and item admins this adds to)
from annotation.models import Item, Project
from annotation.services.errors import WorkflowError
from annotation.task_types import get_task_type
from quality.models import GoldAnswer
from quality.selectors.gold_candidates import unanimous_items
from quality.services.gold_items import items_promote_gold

POSTERIOR_NOTE = ("With a posterior, only items whose MACE label (from the project's last finished agreement "
                  "analysis) is at least that sure are promoted; without one, unanimity and the number of answers "
                  "decide.")


class PromoteGoldForm(forms.Form):
    min_answers = forms.IntegerField(
        label="Answers at least", min_value=1, required=False,
        help_text="Counted answers an item needs, all agreeing. Empty: each project's N (answers per item).")
    limit = forms.IntegerField(label="At most", min_value=1, required=False,
                               help_text="Items to promote per project, in import order. Empty: all that qualify.")
    posterior = forms.FloatField(
        label="MACE posterior at least", min_value=0, max_value=0.9, required=False,
        help_text="From the last finished agreement analysis (at most 0.9: more confident items are not listed "
                  "apart). Empty: unanimity alone.")


@admin.action(description="Promote unanimously answered items to gold questions", permissions=["change"])
def promote_gold(modeladmin, request, queryset):
    projects = list(queryset.order_by("name"))
    form = PromoteGoldForm(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        for project in projects:
            wanted = form.cleaned_data["min_answers"] or project.redundancy
            try:
                n = items_promote_gold(project=project, actor=request.user, min_answers=wanted,
                                       limit=form.cleaned_data["limit"], posterior=form.cleaned_data["posterior"])
            except WorkflowError as exc:
                modeladmin.message_user(request, f"{project}: {exc}", messages.WARNING)
                continue
            text = ngettext("%(project)s: %(n)d item became a gold question", "%(project)s: %(n)d items became gold questions", n)
            modeladmin.message_user(request, (text % {"project": project, "n": n}) +
                                    f" (every one of at least {wanted} answers agreeing). {POSTERIOR_NOTE}",
                                    messages.SUCCESS if n else messages.INFO)
        return None
    rows = []
    for project in projects:
        task = get_task_type(project.task_type)
        found = unanimous_items(project=project, min_answers=project.redundancy) if task.gold_fields else []
        rows.append({"project": project, "n": project.redundancy, "found": len(found),
                     "gold_fields": ", ".join(task.gold_fields), "examples": [item.external_id for item, _, _ in found[:5]]})
    ctx = {**modeladmin.admin_site.each_context(request), "opts": modeladmin.model._meta,
           "title": "Promote items to gold questions", "rows": rows, "form": form, "selected": [p.pk for p in projects], "checkbox": ACTION_CHECKBOX_NAME,
           "posterior_note": POSTERIOR_NOTE}
    return TemplateResponse(request, "admin/annotation/project/promote_gold.html", ctx)


class GoldAnswerInline(admin.StackedInline):
    """The known answer of a gold question or training item: shown, changed only by an import."""

    model = GoldAnswer
    extra = 0
    max_num = 1
    can_delete = False
    fields = ("answer", "accept", "explanation", "source", "evidence", "created_by", "created_at")
    readonly_fields = fields
    verbose_name = verbose_name_plural = "known answer"

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


# The engine's admins, registered when Django's admin imports annotation.admin (imported above,
# so that the order of INSTALLED_APPS does not matter), get quality control's parts here.
_projects = type(admin.site.get_model_admin(Project))
_projects.actions = [*(_projects.actions or ()), promote_gold]
_items = type(admin.site.get_model_admin(Item))
_items.inlines = [*_items.inlines, GoldAnswerInline]
