"""Staff pages of quality control: the adjudication queue and one item's adjudication, and the
items workers flagged as broken (withdraw or dismiss)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation.models import Item, ItemKind, Project
from annotation.selectors.annotator import presentation
from annotation.services.errors import WorkflowError
from annotation.task_types import get_task_type
from annotation.views.nul_fields import refuse_nul_fields
from annotation.views.permissions import permission_required
from annotation.views.request_types import AuthenticatedRequest
from quality.models import Adjudication, GoldAnswer
from quality.selectors.adjudication import (
    POSTERIOR_BELOW,
    REASONS,
    SPLIT_SHARE,
    adjudicated_rows,
    adjudication_queue,
    decision_fields,
    decision_from_form,
    item_answers,
    item_contests,
)
from quality.selectors.flags import flagged_items, withdrawal_effects
from quality.services.adjudication import AdjudicationInvalid, item_adjudicate
from quality.services.flags import item_flags_dismiss, item_withdraw, item_withdrawal_undo

DECIDE = "quality.add_adjudication"
RESOLVE = "quality.change_itemflag"


def share(raw: str | None, default: float, *, high: float = 1.0) -> float:
    """A share from the query string, within 0..high; the default when it is missing or bad."""
    try:
        value = float(raw) if raw not in (None, "") else default
    except ValueError:
        return default
    return default if not 0 <= value <= high else value


@permission_required("annotation.view_project")
def adjudication(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    q = request.GET
    reason = q.get("reason", "") if q.get("reason", "") in REASONS else ""
    queue = adjudication_queue(project=project, reason=reason, page=q.get("page"),
                               split_share=share(q.get("split"), SPLIT_SHARE),
                               posterior_below=share(q.get("posterior"), POSTERIOR_BELOW, high=0.9))
    done_page, done_rows = adjudicated_rows(project=project, page=q.get("dpage"))
    return render(request, "annotation/adjudication.html", {
        "project": project, "queue": queue, "reasons": REASONS, "reason": reason,
        "done_page": done_page, "done_rows": done_rows,
    })


def _item_context(request: AuthenticatedRequest, project: Project, item: Item, *, chosen=None, errors=None,
                  why: str = "", make_gold: bool = False) -> dict:
    task = get_task_type(project.task_type)
    decided = Adjudication.objects.filter(item=item).select_related("decided_by").first()
    gold = GoldAnswer.objects.filter(item=item).first()
    return {
        "project": project, "task": task, "item": item, "sample": item,
        "contests": item_contests(project=project, item=item), "answers": item_answers(item=item),
        "decided": decided, "gold": gold, "reasons": REASONS,
        "fields": decision_fields(item=item, chosen=chosen if chosen is not None else (decided.answer if decided else None)),
        "errors": errors or {}, "why": why, "make_gold": make_gold, "is_gold": item.kind == ItemKind.GOLD,
        "may_decide": request.user.has_perm(DECIDE),
        # The item as its task type renders it for staff (media by key, options in import order).
        **presentation(project=project, worker=None, item=item, staff=True),
    }


@permission_required("annotation.view_project")
@refuse_nul_fields
def adjudication_item(request: AuthenticatedRequest, slug: str, item_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    item = get_object_or_404(Item.objects.select_related("project"), pk=item_id, project=project)
    if request.method != "POST":
        return render(request, "annotation/adjudication_item.html", _item_context(request, project, item))
    if not request.user.has_perm(DECIDE):
        raise PermissionDenied("You may not adjudicate items.")
    answer = decision_from_form(item=item, data=request.POST)
    why, make_gold = request.POST.get("why", ""), request.POST.get("make_gold") == "on"
    try:
        item_adjudicate(item=item, answer=answer, why=why, actor=request.user,
                        contested=[c.reason for c in item_contests(project=project, item=item)], make_gold=make_gold)
    except AdjudicationInvalid as exc:
        ctx = _item_context(request, project, item, chosen=answer, errors=exc.errors, why=why, make_gold=make_gold)
        return render(request, "annotation/adjudication_item.html", ctx, status=400)
    messages.success(request, f"Decision on item {item.external_id} saved.")
    return redirect("adjudication", slug=project.slug)


@permission_required("annotation.view_project")
def flags(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    page, rows = flagged_items(project=project, page=request.GET.get("page"))
    return render(request, "annotation/flags.html", {"project": project, "page": page, "rows": rows,
                                                     "may_resolve": request.user.has_perm(RESOLVE)})


@permission_required(("annotation.view_project", RESOLVE))
@require_POST
def flag_resolve(request: AuthenticatedRequest, slug: str, item_id: int, action: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    item = get_object_or_404(Item.objects.select_related("project"), pk=item_id, project=project)
    note = request.POST.get("note", "")
    if action == "withdraw":
        if request.POST.get("confirm") != "yes":
            # A withdrawal asks first, saying what it does to this item.
            return render(request, "annotation/flag_withdraw_confirm.html", {
                "project": project, "item": item, "note": note, **withdrawal_effects(item=item)})
        item_withdraw(item=item, actor=request.user, note=note)
        messages.success(request, f"Item {item.external_id} was withdrawn: nobody gets it again. "
                                  "Undo it from this list while it stays withdrawn.")
    elif action == "undo":
        try:
            item_withdrawal_undo(item=item, actor=request.user, note=note)
        except WorkflowError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"The withdrawal of item {item.external_id} was undone: it is served again.")
    else:
        item_flags_dismiss(item=item, actor=request.user, note=note)
        messages.success(request, f"The reports on item {item.external_id} were dismissed.")
    return redirect("flags", slug=project.slug)
