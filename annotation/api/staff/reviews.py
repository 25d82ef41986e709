"""API of the assignment admin's review actions: approve or reject chosen assignments of a
project, with the note the admin's form asks for (``annotation.services.review``). An id that is
not one of the project's assignments is a 404 and nothing is reviewed."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.lookups import project_or_404
from annotation.api.parsers import SafeJSONParser
from annotation.api.refusals import refusals
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.views import has_perm
from annotation.models import Assignment
from annotation.services import assignments_review
from annotation.services.review import NOTE_LENGTH

MAX_CHOSEN = 1000


class AssignmentsReviewRequestSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=["approve", "reject"])
    assignments = serializers.ListField(child=serializers.IntegerField(min_value=1), min_length=1,
                                        max_length=MAX_CHOSEN)
    note = serializers.CharField(max_length=NOTE_LENGTH, help_text="Why: kept with each assignment and in the audit log.")


class AssignmentsReviewOutcomeSerializer(serializers.Serializer):
    verdict = serializers.CharField()
    reviewed = serializers.IntegerField()
    unchanged = serializers.IntegerField(help_text="Already had this verdict.")
    not_submitted = serializers.DictField(child=serializers.IntegerField(),
                                          help_text="Assignments without an answer to review, by their status.")
    slots_filled = serializers.IntegerField(help_text="Rejected ones not approved: their item's slots filled again.")


class AssignmentsReview(APIView):
    """POST ``{"verdict": "approve"|"reject", "assignments": [ids], "note": …}``: the admin's
    approve and reject actions (one assignment or many): 200 with what was done and why the
    rest was not."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("annotation.change_assignment")]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="assignments_review", request=AssignmentsReviewRequestSerializer,
                   responses={200: AssignmentsReviewOutcomeSerializer, **refusals(400, 404)})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = project_or_404(slug)
        form = AssignmentsReviewRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        ids = set(form.validated_data["assignments"])
        chosen = list(Assignment.objects.filter(project=project, pk__in=ids).order_by("pk"))
        if len(chosen) != len(ids):
            raise NotFound("Not every assignment is one of this project's; nothing was reviewed.")
        approve = form.validated_data["verdict"] == "approve"
        outcome = assignments_review(assignments=chosen, approve=approve, reviewer=request.user,
                                     note=form.validated_data["note"])
        return Response({"verdict": form.validated_data["verdict"], "reviewed": outcome.reviewed,
                         "unchanged": outcome.unchanged, "not_submitted": dict(outcome.not_submitted),
                         "slots_filled": outcome.slots_filled})
