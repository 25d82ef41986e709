"""Reads of the rules page and API: a project's rules and its decisions, newest first, paged."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet

from annotation.models import Project
from quality.models import QualityRule, RuleDecision

DECISIONS_PER_PAGE = 50


def rules_of(*, project: Project) -> QuerySet[QualityRule]:
    return QualityRule.objects.filter(project=project).order_by("kind", "pk")


def decisions_of(*, project: Project) -> QuerySet[RuleDecision]:
    return (RuleDecision.objects.filter(project=project).select_related("worker")
            .order_by("-decided_at", "-pk"))


def decisions_page(*, project: Project, page: str | int | None, per_page: int = DECISIONS_PER_PAGE) -> Page:
    return Paginator(decisions_of(project=project), per_page).get_page(page)
