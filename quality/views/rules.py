"""The quality rules page of a project: its rules (add, change, enable, disable, delete), the
"Check the rules now" button and the decisions with their evidence in words."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.rule_defaults import DEFAULTS
from annotation.views.permissions import permission_required
from annotation.wording import count_of
from quality.models import QualityRule, RuleDecision
from quality.rules.checks import RuleCheck, rules_check
from quality.rules.error_rates import error_rates
from quality.rules.forms import RuleForm
from quality.rules.selectors import decisions_page, rules_of
from quality.rules.words import decision_words, finding_words
from quality.services.rules.judging import RUN_EVERY
from quality.services.rules.settings import rule_add, rule_change, rule_delete, rule_settings

PAGE = "analysis/rules.html"


def worker_url(slug: str, worker_id: int) -> str | None:
    """The worker's quality page, where the platform has one."""
    try:
        return reverse("quality-worker", args=(slug, worker_id))
    except NoReverseMatch:
        return None


def _decision_rows(project: Project, decisions: list[RuleDecision]) -> list[dict[str, Any]]:
    return [{"decision": d, "words": decision_words(d), "worker": d.worker.get_username(),
             "url": worker_url(project.slug, d.worker_id)} for d in decisions]


NONE_NEW = "none new (already decided on this evidence, or already there)"


# Findings the page lists after a check; the rest are counted (every decision is in the list of
# decisions below them, and the API's check returns every finding).
CHECK_SHOWN = 100


def check_rows(*, project: Project, check: RuleCheck) -> list[dict[str, Any]]:
    """What a check found, worker by worker, as the page lists it and the API returns it: the
    worker (and their quality page), the rule, the evidence and the evidence in words, and the
    new decision it made (None: none new) with that in words."""
    return [{"worker": found.worker.get_username(), "worker_id": found.worker.pk,
             "url": worker_url(project.slug, found.worker.pk), "rule": found.rule,
             "evidence": found.finding.evidence,
             "words": finding_words(kind=found.rule.kind, evidence=found.finding.evidence),
             "decision": found.decision,
             "decided": NONE_NEW if found.decision is None else f"new: {found.decision.get_action_display().lower()}"}
            for found in check.listed]


def _page(request: HttpRequest, project: Project, *, form: RuleForm | None = None,
          editing: QualityRule | None = None, status: int = 200, check: RuleCheck | None = None) -> HttpResponse:
    decisions = decisions_page(project=project, page=request.GET.get("page"))
    found = check_rows(project=project, check=check) if check is not None else []
    ctx = {
        "project": project,
        "rules": rules_of(project=project),
        "form": form if form is not None and editing is None else RuleForm(kind=request.GET.get("kind")),
        "kinds": QualityRule.Kind.choices,
        # Choosing a kind in the form fills in its defaults (static/js/rule_form.js).
        "kind_defaults": DEFAULTS,
        "editing": editing,
        "edit_form": form if editing is not None else None,
        "decisions": decisions,
        "rows": _decision_rows(project, list(decisions.object_list)),
        "check": check,
        "check_rows": found[:CHECK_SHOWN],
        "check_more": max(len(found) - CHECK_SHOWN, 0),
        "error_rates": error_rates(),
        "run_every": RUN_EVERY,
    }
    return render(request, PAGE, ctx, status=status)


@permission_required("annotation.view_project")
def rules_page(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    editing = None
    if request.GET.get("edit"):
        editing = QualityRule.objects.filter(project=project, pk=request.GET["edit"]).first() \
            if request.GET["edit"].isdigit() else None
    form = RuleForm(initial=rule_settings(rule=editing), rule=editing) if editing is not None else None
    return _page(request, project, form=form, editing=editing)


@require_POST
@permission_required("quality.add_qualityrule")
def rule_add_view(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    form = RuleForm(request.POST)
    if not form.is_valid():
        return _page(request, project, form=form, status=400)
    rule = rule_add(project=project, actor=request.user, data=form.cleaned_data)  # type: ignore[arg-type]
    messages.success(request, f"Rule {rule.pk} added: {rule}.")
    return redirect("quality-rules", slug=slug)


@require_POST
@permission_required("quality.change_qualityrule")
def rule_edit_view(request: HttpRequest, slug: str, rule_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    rule = get_object_or_404(QualityRule, project=project, pk=rule_id)
    form = RuleForm(request.POST, initial=rule_settings(rule=rule), rule=rule)
    if not form.is_valid():
        return _page(request, project, form=form, editing=rule, status=400)
    rule_change(rule=rule, actor=request.user, data=form.cleaned_data)  # type: ignore[arg-type]
    messages.success(request, f"Rule {rule.pk} saved.")
    return redirect("quality-rules", slug=slug)


@require_POST
@permission_required("quality.change_qualityrule")
def rule_switch_view(request: HttpRequest, slug: str, rule_id: int, state: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    rule = get_object_or_404(QualityRule, project=project, pk=rule_id)
    rule_change(rule=rule, actor=request.user, data={"enabled": state == "enable"})  # type: ignore[arg-type]
    messages.success(request, f"Rule {rule.pk} {'enabled' if state == 'enable' else 'disabled'}.")
    return redirect("quality-rules", slug=slug)


@require_POST
@permission_required("quality.delete_qualityrule")
def rule_delete_view(request: HttpRequest, slug: str, rule_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    rule = get_object_or_404(QualityRule, project=project, pk=rule_id)
    rule_delete(rule=rule, actor=request.user)  # type: ignore[arg-type]
    messages.success(request, f"Rule {rule_id} deleted; its decisions stay below.")
    return redirect("quality-rules", slug=slug)


@require_POST
@permission_required("quality.change_qualityrule")
def rules_check_view(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    check = rules_check(project=project, actor=request.user)  # type: ignore[arg-type]
    found = sum(check.found.values())
    messages.success(request, f"The rules were checked: {count_of(found, 'finding', 'findings')}, "
                              f"{count_of(len(check.decisions), 'new decision', 'new decisions')}.")
    # The page itself, with what the check found listed: a redirect would lose the list.
    return _page(request, project, check=check)
