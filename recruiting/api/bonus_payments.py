"""API of paying bonuses through Prolific and of a project's pay per hour: the ledger's payment
states, paying owed bonuses (all or some), reconciling, settling an unconfirmed payment, and the
reward per item with the hourly rate it implies. Another project's bonus or payment ids answer
404 and change nothing."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import ErrorDetail
from annotation.api.unseen import unseen
from annotation.models import Project
from recruiting.models import Bonus, BonusPayment, PaymentState
from recruiting.selectors.bonus_payments import (
    bonus_pay_jobs_of,
    bonus_payment_rows,
    bonus_payments_of,
    bonus_row_data,
    job_data,
    payment_data,
)
from recruiting.selectors.pay_rate import project_pay_rate
from recruiting.services.bonus_payments.payments import (
    PaymentRefused,
    bonus_payment_confirm,
    bonus_payment_release,
    bonuses_pay,
    bonuses_reconcile,
)
from recruiting.services.project_pay import PaySettingRefused, project_pay_set

MAX_IDS = 5000
STATES_HELP = "One of: " + ", ".join(PaymentState.values) + "."


def _perms(*perms: str) -> type[BasePermission]:
    class Perms(BasePermission):
        message = f"You need the permission{'s' if len(perms) > 1 else ''} {' and '.join(perms)}."

        def has_permission(self, request, view) -> bool:
            return bool(request.user and request.user.is_authenticated and request.user.has_perms(perms))

    return Perms


CanSeeBonuses = _perms("annotation.view_project", "recruiting.view_bonus")
CanPayBonuses = _perms("annotation.view_project", "recruiting.change_bonus")
CanSeeProject = _perms("annotation.view_project")
CanChangeProject = _perms("annotation.view_project", "annotation.change_project")


def _project(slug: str) -> Project:
    project = Project.objects.filter(slug=slug).first()
    if project is None:
        raise unseen()
    return project


class BonusRowOut(serializers.Serializer):
    id = serializers.IntegerField()
    worker = serializers.CharField()
    worker_source = serializers.CharField()
    worker_external_id = serializers.CharField()
    amount = serializers.CharField(help_text="A decimal string.")
    currency = serializers.CharField()
    reason = serializers.CharField()
    state = serializers.CharField(help_text=STATES_HELP)
    payment = serializers.IntegerField(allow_null=True)
    bulk_id = serializers.CharField()
    paid_at = serializers.DateTimeField(allow_null=True)
    paid_note = serializers.CharField()


class PaymentOut(serializers.Serializer):
    id = serializers.IntegerField()
    marketplace = serializers.CharField()
    study_id = serializers.CharField()
    bulk_id = serializers.CharField(help_text="Prolific's bulk bonus payment id; empty until it was set up.")
    state = serializers.CharField(help_text=STATES_HELP)
    currency = serializers.CharField()
    bonuses = serializers.IntegerField()
    error = serializers.CharField()
    evidence = serializers.JSONField(help_text="What Prolific showed when the payment was read back.")
    created_at = serializers.DateTimeField()
    pay_sent_at = serializers.DateTimeField(allow_null=True)
    settled_at = serializers.DateTimeField(allow_null=True)


class JobOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["pay", "reconcile"])
    status = serializers.CharField()
    payment = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()
    result = serializers.JSONField(allow_null=True)
    created_at = serializers.DateTimeField()


class PaymentsOut(serializers.Serializer):
    bonuses = BonusRowOut(many=True)
    payments = PaymentOut(many=True)
    jobs = JobOut(many=True)


class PayIn(serializers.Serializer):
    bonuses = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False,
                                    max_length=MAX_IDS, help_text="Ids of owed bonuses to pay; omit with all.")
    all = serializers.BooleanField(required=False, default=False, help_text="Pay every owed bonus.")


class QueuedOut(serializers.Serializer):
    job = JobOut()


class SettleIn(serializers.Serializer):
    note = serializers.CharField(max_length=500, help_text="What Prolific's own records show.")


class SettledOut(serializers.Serializer):
    payment = PaymentOut()
    bonuses = serializers.IntegerField(help_text="Ledger rows settled.")


class PayRateOut(serializers.Serializer):
    marketplace = serializers.CharField()
    reward_per_item = serializers.CharField(allow_null=True)
    currency = serializers.CharField()
    answers = serializers.IntegerField(help_text="Counted answers with a recorded time.")
    median_seconds = serializers.FloatField(allow_null=True)
    hourly = serializers.CharField(allow_null=True, help_text="Reward per item × 3600 / median seconds.")
    minimum_hourly = serializers.CharField(allow_null=True)
    recommended_hourly = serializers.CharField(allow_null=True)
    below_minimum = serializers.BooleanField()
    reward_needed = serializers.CharField(allow_null=True, help_text="Reward per item that pays the minimum.")
    warning = serializers.CharField()


class PayRateIn(serializers.Serializer):
    reward_per_item = serializers.CharField(max_length=20, help_text="e.g. 0.25")
    currency = serializers.CharField(max_length=3, help_text="The study's currency: GBP or USD.")


def _errors(exc: PaymentRefused | PaySettingRefused) -> Response:
    return Response({exc.field: [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


NOT_FOUND = OpenApiResponse(ErrorDetail, description="No such project, or an id that is not this project's.")
FORBIDDEN = OpenApiResponse(ErrorDetail, description="Without the permission.")


class BonusPayments(APIView):
    permission_classes = [CanSeeBonuses]

    @extend_schema(operation_id="bonus_payments_list", tags=["bonus payments"], summary="The ledger's payment states", responses={200: PaymentsOut, 403: FORBIDDEN, 404: NOT_FOUND},
                   parameters=[OpenApiParameter("state", str, enum=PaymentState.values,
                                                description="Keep only rows in this state.")])
    def get(self, request: Request, slug: str) -> Response:
        project = _project(slug)
        rows = bonus_payment_rows(project=project, state=request.query_params.get("state", ""))
        return Response({"bonuses": [bonus_row_data(bonus=b) for b in rows],
                         "payments": [payment_data(payment=p) for p in bonus_payments_of(project=project)],
                         "jobs": [job_data(job=j) for j in bonus_pay_jobs_of(project=project)]})


class BonusPay(APIView):
    permission_classes = [CanPayBonuses]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="bonuses_pay", tags=["bonus payments"], summary="Pay owed bonuses through Prolific", request=PayIn,
                   responses={202: QueuedOut, 400: OpenApiResponse(description="The field at fault, with why."),
                              403: FORBIDDEN, 404: NOT_FOUND})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = _project(slug)
        data = _valid(PayIn, request)
        ids = data.get("bonuses")
        if not ids and not data.get("all"):
            return Response({"bonuses": ["Name the bonuses to pay, or send all: true."]}, status=400)
        chosen = None
        if ids and not data.get("all"):
            chosen = list(Bonus.objects.filter(project=project, pk__in=ids))
            if len(chosen) != len(set(ids)):
                raise unseen()  # another project's (or no) bonus: the same 404, nothing written
        try:
            job = bonuses_pay(project=project, bonuses=chosen, actor=request.user)
        except PaymentRefused as exc:
            return _errors(exc)
        job.refresh_from_db()
        return Response({"job": job_data(job=job)}, status=status.HTTP_202_ACCEPTED)


class BonusReconcile(APIView):
    permission_classes = [CanPayBonuses]

    @extend_schema(operation_id="bonus_payments_reconcile", tags=["bonus payments"], summary="Settle unfinished Prolific payments", request=None,
                   responses={202: QueuedOut, 403: FORBIDDEN, 404: NOT_FOUND})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        job = bonuses_reconcile(project=_project(slug), actor=request.user)
        job.refresh_from_db()
        return Response({"job": job_data(job=job)}, status=status.HTTP_202_ACCEPTED)


class BonusPaymentSettle(APIView):
    """confirm: Prolific's records show the unconfirmed payment was paid; release: they show it
    was not, and its rows are owed again."""

    permission_classes = [CanPayBonuses]
    parser_classes = [SafeJSONParser]
    action = "confirm"

    @extend_schema(operation_id="bonus_payment_settle", tags=["bonus payments"], summary="Settle an unconfirmed payment by hand", request=SettleIn,
                   responses={200: SettledOut, 400: OpenApiResponse(description="The field at fault, with why."),
                              403: FORBIDDEN, 404: NOT_FOUND})
    def post(self, request: AuthenticatedApiRequest, slug: str, pk: int) -> Response:
        project = _project(slug)
        payment = BonusPayment.objects.filter(project=project, pk=pk).first()
        if payment is None:
            raise unseen()
        note = _valid(SettleIn, request)["note"]
        settle = bonus_payment_confirm if self.action == "confirm" else bonus_payment_release
        try:
            n = settle(payment=payment, actor=request.user, note=note)
        except PaymentRefused as exc:
            return _errors(exc)
        payment.refresh_from_db()
        return Response({"payment": payment_data(payment=payment), "bonuses": n})


class PayRate(APIView):
    def get_permissions(self):
        return [(CanSeeProject if self.request.method == "GET" else CanChangeProject)()]

    @extend_schema(operation_id="pay_rate_retrieve", tags=["bonus payments"], summary="Pay per hour the reward per item implies", responses={200: PayRateOut, 403: FORBIDDEN,
                                                                                    404: NOT_FOUND})
    def get(self, request: Request, slug: str) -> Response:
        return Response(project_pay_rate(project=_project(slug)).as_dict())

    @extend_schema(operation_id="pay_rate_set", tags=["bonus payments"], summary="Set the reward per item", request=PayRateIn,
                   responses={200: PayRateOut, 400: OpenApiResponse(description="The field at fault, with why."),
                              403: FORBIDDEN, 404: NOT_FOUND})
    def put(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = _project(slug)
        data = _valid(PayRateIn, request)
        try:
            project_pay_set(project=project, reward_per_item=data["reward_per_item"], currency=data["currency"],
                            actor=request.user)
        except PaySettingRefused as exc:
            return _errors(exc)
        return Response(project_pay_rate(project=project).as_dict())


@extend_schema_view(post=extend_schema(operation_id="bonus_payment_confirm",
                                       summary="Confirm by hand that an unconfirmed payment was made"))
class BonusPaymentConfirm(BonusPaymentSettle):
    action = "confirm"


@extend_schema_view(post=extend_schema(operation_id="bonus_payment_release",
                                       summary="Release an unconfirmed payment's bonuses to owed"))
class BonusPaymentRelease(BonusPaymentSettle):
    action = "release"
