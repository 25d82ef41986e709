"""API of the bonus ledger: the ledger itself (its rows and each worker's totals), and the bonus admin's actions: remove a bonus granted in error (never a paid one), and
mark chosen bonuses paid once the money went out by hand (``recruiting.services.bonuses``).
Granting one is the worker action ``bonus`` (``quality.api.workers``). An id that is not one of
the project's bonuses is a 404 and changes nothing."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.lookups import project_or_404
from annotation.api.parsers import SafeJSONParser
from annotation.api.refusals import refusals
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.views import has_perm
from recruiting.exports import bonus_rows
from recruiting.models import Bonus
from recruiting.selectors.bonuses import bonus_ledger
from recruiting.services.bonuses import bonus_remove, bonuses_mark_paid

MAX_CHOSEN = 1000
NOTE_LENGTH: int = Bonus._meta.get_field("paid_note").max_length or 300


class BonusRow(serializers.Serializer):
    worker = serializers.CharField()
    worker_source = serializers.CharField(allow_blank=True)
    worker_external_id = serializers.CharField(allow_blank=True)
    assignment = serializers.IntegerField(allow_null=True)
    item = serializers.CharField(allow_null=True, help_text="The item's external id.")
    amount = serializers.CharField(help_text="A decimal string.")
    currency = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    paid_at = serializers.DateTimeField(allow_null=True)


class WorkerBonusTotals(serializers.Serializer):
    worker_id = serializers.IntegerField()
    worker = serializers.CharField()
    worker_source = serializers.CharField(allow_blank=True)
    worker_external_id = serializers.CharField(allow_blank=True)
    currency = serializers.CharField()
    count = serializers.IntegerField()
    total = serializers.CharField(help_text="A decimal string.")
    paid = serializers.CharField(help_text="A decimal string.")
    unpaid = serializers.CharField(help_text="A decimal string.")


class BonusLedgerOut(serializers.Serializer):
    rows = BonusRow(many=True)
    workers = WorkerBonusTotals(many=True, help_text="Per worker and currency.")


class BonusList(APIView):
    """The project's bonus ledger: every bonus (``rows``, the columns of the CSV export) and what
    each worker was granted, paid and is owed per currency (``workers``). Amounts are decimal
    strings, as money should be."""

    permission_classes = [has_perm("annotation.export_annotations")]

    @extend_schema(tags=["exports"], operation_id="bonuses_list", summary="The project's bonus ledger",
                   responses={200: BonusLedgerOut})
    def get(self, request: Request, slug: str) -> Response:
        project = project_or_404(slug)
        workers = [{**w.__dict__, "total": str(w.total), "paid": str(w.paid), "unpaid": str(w.unpaid)}
                   for w in bonus_ledger(project=project)]
        return Response({"rows": list(bonus_rows(project=project)), "workers": workers})


class BonusesMarkPaidRequestSerializer(serializers.Serializer):
    bonuses = serializers.ListField(child=serializers.IntegerField(min_value=1), min_length=1, max_length=MAX_CHOSEN)
    note = serializers.CharField(max_length=NOTE_LENGTH, required=False, allow_blank=True,
                                 help_text="How it was paid; default: who marked it.")


class BonusesMarkPaidSerializer(serializers.Serializer):
    marked = serializers.IntegerField()
    paid_before = serializers.IntegerField(help_text="Paid before: they keep their date and note.")


class BonusRemove(APIView):
    """DELETE: remove the project's bonus ``pk`` from the ledger (audited); 409 for a paid one."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("recruiting.delete_bonus")]

    @extend_schema(operation_id="bonus_remove", request=None,
                   responses={204: OpenApiResponse(description="Removed."), **refusals(404, 409)})
    def delete(self, request: AuthenticatedApiRequest, slug: str, pk: int) -> Response:
        bonus = Bonus.objects.filter(project=project_or_404(slug), pk=pk).first()
        if bonus is None:
            raise NotFound("The project has no bonus with this id.")
        try:
            bonus_remove(bonus=bonus, actor=request.user)
        except ValueError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)


class BonusesMarkPaid(APIView):
    """POST ``{"bonuses": [ids], "note": …}``: mark the project's chosen bonuses paid, as the
    admin's action does; those paid before keep their date."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("recruiting.change_bonus")]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="bonuses_mark_paid", request=BonusesMarkPaidRequestSerializer,
                   responses={200: BonusesMarkPaidSerializer, **refusals(400, 404)})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = project_or_404(slug)
        form = BonusesMarkPaidRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        ids = set(form.validated_data["bonuses"])
        chosen = list(Bonus.objects.filter(project=project, pk__in=ids))
        if len(chosen) != len(ids):
            raise NotFound("Not every bonus is one of this project's; nothing was marked.")
        note = form.validated_data.get("note") or f"marked paid by {request.user.get_username()}"
        marked = bonuses_mark_paid(bonuses=chosen, note=note, actor=request.user)
        return Response({"marked": marked, "paid_before": len(chosen) - marked})
