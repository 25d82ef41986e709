"""The project's quality-control page: its settings (gold rate, feedback, scoring, the
qualification), what checks it holds, where its workers stand, and links to the rules,
adjudication, flagged items and the audit log."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.views.permissions import permission_required
from annotation.views.request_types import AuthenticatedRequest
from annotation.wording import count_of
from quality.models import QualityPolicy
from quality.selectors.settings import quality_policy_values, quality_summary, settings_for
from quality.services.settings import SETTINGS, quality_policy_update
from quality.services.training import training_rounds_send


class QualityPolicyForm(forms.ModelForm):
    class Meta:
        model = QualityPolicy
        fields = list(SETTINGS)
        widgets = {
            "gold_rate": forms.NumberInput(attrs={"step": "0.01", "min": "0", "max": "0.5"}),
            "set_pass": forms.NumberInput(attrs={"step": "0.05", "min": "0", "max": "1"}),
            "qualification_pass": forms.NumberInput(attrs={"step": "0.05", "min": "0", "max": "1"}),
        }


def _offered(form: QualityPolicyForm, offered: tuple[str, ...]) -> QualityPolicyForm:
    for name in [n for n in form.fields if n not in offered]:
        del form.fields[name]
    return form


# The pages of quality control, by URL name (each takes the project's slug), in the order shown.
PAGES = (("quality-rules", "Rules and decisions"), ("adjudication", "Adjudication queue"),
         ("flags", "Flagged items"), ("audit-csv", "Audit log (CSV)"))


def _links(project: Project) -> list[tuple[str, str]]:
    links = []
    for name, label in PAGES:
        try:
            links.append((reverse(name, args=[project.slug]), label))
        except NoReverseMatch:
            continue
    return links


def _has_url(name: str) -> bool:
    try:
        reverse(name, args=["x", 1])
    except NoReverseMatch:
        return False
    return True


@require_POST
@permission_required(("annotation.view_project", "quality.add_traininground"))
def training_for_everyone(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    """Send every worker of the project back through a re-calibration round."""
    project = get_object_or_404(Project, slug=slug)
    note = " ".join(request.POST.get("note", "").split())[:500]
    opened = training_rounds_send(project=project, actor=request.user, note=note)
    if opened:
        messages.success(request, f"{count_of(opened, 'worker', 'workers')} sent to a training round.")
    else:
        messages.warning(request, "No worker was sent to a training round: none has a training item left, or "
                                  "they are blocked, screened out or in a round already.")
    return redirect("quality", slug=project.slug)


@never_cache
@permission_required("annotation.view_project")
def quality(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    # Only the settings the project's task type reads are offered.
    offered = settings_for(project=project)
    form = _offered(QualityPolicyForm(initial=quality_policy_values(project=project)), offered)
    if request.method == "POST":
        if not request.user.has_perm("annotation.change_project"):
            raise PermissionDenied("You may not change this project's settings.")
        form = _offered(QualityPolicyForm(request.POST), offered)
        if form.is_valid():
            try:
                quality_policy_update(project=project, values={n: form.cleaned_data[n] for n in offered},
                                      actor=request.user)
            except ValidationError as exc:
                for name, errors in exc.message_dict.items():
                    form.add_error(name if name in form.fields else None, errors)
            else:
                messages.success(request, "Quality settings saved.")
                return redirect("quality", slug=project.slug)
    return render(request, "annotation/quality.html", {
        "project": project, "form": form, "summary": quality_summary(project=project),
        "can_change": request.user.has_perm("annotation.change_project"),
        "links": _links(project), "worker_pages": _has_url("quality-worker"),
    })
