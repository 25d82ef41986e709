"""The annotator's side of the API as the OpenAPI schema describes it: what ``assignments/next/``,
``submit/`` (with ``?next=1``), ``plays/`` and ``annotation/`` take and give (``flag/`` and
``qualification/retry/`` are quality control's: ``quality.api.schema``). The views build these answers by hand (``annotation.api.serializers``: the loop is
the API's busiest path); these serializers only describe them and never run."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers

from annotation.api.schema.errors import field_errors
from annotation.models import Assignment

NEXT_REASONS = ["consent", "done", "quota", "blocked", "review", "screened_out", "qualification_failed", "no_training",
                "inactive", "not_member"]


class AssignedItem(serializers.Serializer):
    payload = serializers.JSONField(help_text="The item as the task type lets this worker see it: options in the "
                                              "order drawn for the assignment, media under their references.")


class AssignmentOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="The assignment: the client's only reference to the item.")
    status = serializers.ChoiceField(choices=Assignment.Status.choices)
    assigned_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(help_text="When the lease ends.")
    submitted_at = serializers.DateTimeField(allow_null=True)
    shown_order = serializers.JSONField(help_text="{part: [option ids]} as drawn; null for a type "
                                                                   "with nothing to order.")
    item = AssignedItem()


class TrainingOut(serializers.Serializer):
    kind = serializers.CharField(help_text="qualification or recalibration")
    round = serializers.IntegerField()
    item = serializers.IntegerField(help_text="This item's place in the round (1 the first).")
    of = serializers.IntegerField(help_text="Items in the round.")
    note = serializers.CharField(allow_blank=True)


class LastRound(serializers.Serializer):
    right = serializers.IntegerField()
    answered = serializers.IntegerField()
    pass_mark = serializers.FloatField()


class NextOut(serializers.Serializer):
    """What the worker gets next: an ``assignment`` with how to present it, or ``assignment: null``
    and the ``reason`` (with, after a failed qualification, the attempts left, and for a worker
    from a marketplace who was screened out, the completion code and link)."""

    assignment = AssignmentOut(allow_null=True)
    reason = serializers.ChoiceField(choices=NEXT_REASONS, required=False,
                                     help_text="Why there is no assignment (only when `assignment` is null).")
    resumed = serializers.BooleanField(required=False, help_text="The worker's open assignment, given again.")
    variant = serializers.CharField(required=False, allow_blank=True,
                                    help_text="The worker's presentation (e.g. listening or reading).")
    options = serializers.DictField(child=serializers.JSONField(), required=False,
                                    help_text="The project's task-type options.")
    training = TrainingOut(required=False, help_text="The item belongs to the worker's training round.")
    attempts_left = serializers.IntegerField(required=False, help_text="After a failed qualification.")
    last_round = LastRound(required=False, allow_null=True)
    completion_code = serializers.CharField(required=False, allow_blank=True)
    completion_url = serializers.CharField(required=False, allow_blank=True)


class Signals(serializers.Serializer):
    """Counted by the client while the item was shown; a count out of range is clamped to it, a
    value of another kind left out: signals never refuse an answer (``annotation.authenticity``)."""

    pasted = serializers.IntegerField(required=False, help_text="Pastes into the answer.")
    hidden_ms = serializers.IntegerField(required=False, help_text="Time the page was hidden.")
    blurs = serializers.IntegerField(required=False, help_text="Times the page lost focus.")
    webdriver = serializers.BooleanField(required=False, help_text="navigator.webdriver was set.")


class AnswerIn(serializers.Serializer):
    """The answer's fields as the project's task type names them (``GET /api/task-types/``:
    ``answer_fields`` and a worked example), as a JSON object or form fields."""

    client_elapsed_ms = serializers.IntegerField(required=False, help_text="Time the client showed the item.")
    signals = Signals(required=False, help_text="Evidence for staff; never a reason to refuse the answer.")


class AnswerRevisionIn(AnswerIn):
    version = serializers.IntegerField(required=False, help_text="The version being replaced: refuses the "
                                                                 "change if the answer changed meanwhile.")


class AnnotationOut(serializers.Serializer):
    id = serializers.IntegerField()
    assignment = serializers.IntegerField()
    answer = serializers.JSONField(help_text="The answer's fields, in canonical option ids.")
    reason = serializers.CharField(allow_blank=True)
    seconds = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()


class RoundResultOut(serializers.Serializer):
    right = serializers.IntegerField()
    items = serializers.IntegerField()
    results = serializers.ListField(child=serializers.BooleanField(),
                                    help_text="Each item of the round right or not, in the order settled.")


class FeedbackOut(serializers.Serializer):
    right = serializers.BooleanField(required=False, help_text="Absent only in `round`-only feedback.")
    score = serializers.FloatField(required=False)
    method = serializers.CharField(required=False)
    your_answer_text = serializers.CharField(required=False, allow_blank=True)
    expected = serializers.JSONField(required=False, help_text="After a gold question, and after a training item "
                                                               "when the project's training feedback is after_each.")
    expected_text = serializers.CharField(required=False, allow_blank=True)
    why = serializers.CharField(required=False, allow_blank=True)
    round = RoundResultOut(required=False, help_text="Training feedback after_round: on the round's last answer "
                                                     "only, and then alone.")


class SubmitOut(AnnotationOut):
    """The stored annotation; with ``?next=1`` also what ``assignments/next/`` would give."""

    counted = serializers.BooleanField(help_text="Whether the answer counts toward the item's redundancy.")
    feedback = FeedbackOut(required=False, help_text="After a training item, or a gold question where the "
                                                     "project gives feedback.")
    next = NextOut(required=False, help_text="Only with `?next=1`: the next assignment, or why there is none.")


class SubmitConflict(serializers.Serializer):
    detail = serializers.CharField()
    stored = AnnotationOut(required=False, help_text="The answer stored first (when the item was answered "
                                                     "differently).")
    change = serializers.CharField(required=False, help_text="Where to PUT a changed answer.")


class MediaPlayOut(serializers.Serializer):
    key = serializers.CharField(help_text="The file's reference, as the payload names it.")
    duration = serializers.FloatField(allow_null=True, help_text="Seconds, read from the file.")
    fetched = serializers.BooleanField()
    served = serializers.FloatField(allow_null=True, help_text="Share of the file's bytes sent (0 to 1).")
    plays = serializers.IntegerField()
    first_played_at = serializers.DateTimeField(allow_null=True)


class PlaysOut(serializers.Serializer):
    assignment = serializers.IntegerField()
    media = MediaPlayOut(many=True)


class PlayIn(serializers.Serializer):
    key = serializers.CharField(help_text="A reference of the item's files.")
    play = serializers.IntegerField(required=False, default=1, help_text="1 for the first start of playback.")


class RevisionOut(serializers.Serializer):
    version = serializers.IntegerField()
    answer = serializers.JSONField()
    reason = serializers.CharField(allow_blank=True)
    seconds = serializers.FloatField(allow_null=True)
    saved_at = serializers.DateTimeField()
    replaced_at = serializers.DateTimeField()


class CurrentAnnotationOut(AnnotationOut):
    version = serializers.IntegerField()
    revised_at = serializers.DateTimeField(allow_null=True)
    revisable_until = serializers.DateTimeField(allow_null=True, help_text="Null when it can no longer change.")
    history = RevisionOut(many=True, help_text="Earlier versions.")


class RevisedAnnotationOut(CurrentAnnotationOut):
    changed = serializers.BooleanField(help_text="False when the answer equals the stored one.")


# POST /api/assignments/<id>/submit/ (annotation.api.views.AssignmentSubmit).
SUBMIT_SCHEMA = extend_schema(
    tags=["annotating"], operation_id="assignment_submit", summary="Submit an answer (and get the next item)",
    request=AnswerIn,
    parameters=[OpenApiParameter(
        "next", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False,
        description="`1` (or `true`): the answer also carries, under `next`, what `assignments/next/` would "
                    "give: the next assignment or the reason there is none. One request per item. Any other "
                    "value is ignored.")],
    responses={
        200: OpenApiResponse(SubmitOut, "The same answer again: the stored annotation."),
        201: OpenApiResponse(SubmitOut, "Stored."),
        400: field_errors("The answer is invalid: each field at fault is named."),
        409: OpenApiResponse(SubmitConflict, "Not saved: the item was already answered differently (`stored`, "
                                             "and `change`, where to PUT a change), or the assignment is no "
                                             "longer open (lease expired, item withdrawn: `detail` only)."),
    },
)
