"""The project's bonuses page: every ledger row with its payment state, paying owed bonuses
through Prolific (all, or those ticked), reconciling now, settling an unconfirmed payment with
its evidence, and the reward per item with the pay per hour it implies. The payments run as
jobs: a request only queues them."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.services.audit import audit_record
from annotation.views.permissions import permission_required
from annotation.views.request_types import AuthenticatedRequest
from recruiting.exports import bonus_export_response
from recruiting.models import Bonus, BonusPayment, PaymentState
from recruiting.selectors.bonus_payments import (
    bonus_pay_jobs_of,
    bonus_payment_rows,
    bonus_payments_of,
)
from recruiting.selectors.bonuses import bonus_totals
from recruiting.selectors.pay_rate import project_pay_rate
from recruiting.services.bonus_payments.payments import (
    PaymentRefused,
    bonus_payment_confirm,
    bonus_payment_release,
    bonuses_pay,
    bonuses_reconcile,
)
from recruiting.services.project_pay import PaySettingRefused, project_pay_set

SEE = ("annotation.view_project", "recruiting.view_bonus")
PAY = ("annotation.view_project", "recruiting.change_bonus")
PER_PAGE = 200
TEMPLATE = "recruiting/bonuses.html"
# Payments a person may still have to look at.
OPEN = (PaymentState.OWED, PaymentState.BATCHED, PaymentState.PAYING, PaymentState.UNCONFIRMED, PaymentState.FAILED)


@permission_required(SEE)
def bonuses_page(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    state = request.GET.get("state", "")
    rows = Paginator(bonus_payment_rows(project=project, state=state), PER_PAGE).get_page(request.GET.get("page"))
    return render(request, TEMPLATE, {
        "project": project, "rows": rows, "state": state if state in PaymentState.values else "",
        "states": PaymentState.choices, "totals": bonus_totals(project=project),
        "payments": [p for p in bonus_payments_of(project=project)[:50] if p.state in OPEN],
        "jobs": bonus_pay_jobs_of(project=project, limit=5), "rate": project_pay_rate(project=project),
        "linked": hasattr(project, "prolific_study"), "may_pay": request.user.has_perms(PAY),
        "may_set_pay": request.user.has_perm("annotation.change_project"),
        "owed": Bonus.objects.filter(project=project, payment_state=PaymentState.OWED, payment=None).count(),
    })


def _back(slug: str) -> HttpResponse:
    return redirect("bonuses", slug=slug)


@permission_required(PAY)
@require_POST
def bonuses_pay_view(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    chosen = None
    if request.POST.get("all") != "1":
        ids = {int(v) for v in request.POST.getlist("bonus") if v.isdigit()}
        if not ids:
            messages.error(request, "Nothing was paid: tick the bonuses to pay, or pay all owed.")
            return _back(slug)
        chosen = list(Bonus.objects.filter(project=project, pk__in=ids))
        if len(chosen) != len(ids):
            raise Http404("no such bonus in this project")
    try:
        job = bonuses_pay(project=project, bonuses=chosen, actor=request.user)
    except PaymentRefused as exc:
        messages.error(request, f"Nothing was paid: {exc}")
    else:
        messages.success(request, f"Payment queued (job #{job.pk}): reload the page to follow each bonus's state.")
    return _back(slug)


@permission_required(PAY)
@require_POST
def bonuses_reconcile_view(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    job = bonuses_reconcile(project=project, actor=request.user)
    messages.success(request, f"Reconciliation queued (job #{job.pk}).")
    return _back(slug)


@permission_required(PAY)
@require_POST
def bonus_payment_settle_view(request: AuthenticatedRequest, slug: str, pk: int, action: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    payment = get_object_or_404(BonusPayment, project=project, pk=pk)
    if action not in ("confirm", "release"):
        raise Http404("unknown action")
    settle = bonus_payment_confirm if action == "confirm" else bonus_payment_release
    try:
        n = settle(payment=payment, actor=request.user, note=request.POST.get("note", ""))
    except PaymentRefused as exc:
        messages.error(request, f"Nothing was changed: {exc}")
    else:
        messages.success(request, f"{n} bonus{'es' if n != 1 else ''} "
                                  f"{'marked paid' if action == 'confirm' else 'owed again'}.")
    return _back(slug)


@permission_required(("annotation.view_project", "annotation.change_project"))
@require_POST
def project_pay_view(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    try:
        project_pay_set(project=project, reward_per_item=request.POST.get("reward_per_item", ""),
                        currency=request.POST.get("currency", ""), actor=request.user)
    except PaySettingRefused as exc:
        messages.error(request, f"Not saved ({exc.field.replace('_', ' ')}): {exc}")
    else:
        messages.success(request, "Reward per item saved.")
    return redirect("overview" if request.POST.get("next") == "overview" else "bonuses", slug=slug)


@permission_required("annotation.export_annotations")
def export_bonuses(request: AuthenticatedRequest, slug: str) -> StreamingHttpResponse:
    project = get_object_or_404(Project, slug=slug)
    audit_record(actor=request.user, action="export", project=project, target="bonuses.csv",
                 details={"format": "csv", "via": "page"})
    return bonus_export_response(project=project)
