"""Quality control in the API as the OpenAPI schema describes it: quality settings, gold
promotion, training, the worker page and its actions, the audit log, adjudication and flags, and
the annotator's ``flag/`` and ``qualification/retry/``. The
views build these answers by hand; these serializers only describe them and never run."""

from __future__ import annotations

from rest_framework import serializers

from quality.models import ItemFlag


def free(help_text: str = "", **kwargs) -> serializers.DictField:
    """A JSON object whose keys the data decide (settings by name, counts by kind …)."""
    return serializers.DictField(child=serializers.JSONField(), help_text=help_text, **kwargs)


def counts(help_text: str) -> serializers.DictField:
    return serializers.DictField(child=serializers.IntegerField(), help_text=help_text)


class QualitySummary(serializers.Serializer):
    items_by_kind = counts("Items per kind (task, gold, training …).")
    workers_by_state = counts("Workers per standing (qualifying, active, review, blocked, screened_out).")
    gold_answered = serializers.IntegerField()
    gold_right = serializers.IntegerField()
    open_flags = serializers.IntegerField()
    rules = serializers.IntegerField()
    enabled_rules = serializers.IntegerField()
    decisions = serializers.IntegerField()


class QualityOut(serializers.Serializer):
    settings = free("Every quality setting by name (defaults until changed), among them what review and "
                    "blocking do: review_pauses_work and blocked_answers_excluded (both true by default).")
    summary = QualitySummary()


class NoteIn(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class RoundsOpenedOut(serializers.Serializer):
    rounds_opened = serializers.IntegerField()


class GoldPromoteIn(serializers.Serializer):
    min_answers = serializers.IntegerField(required=False, allow_null=True,
                                           help_text="Answers an item needs; the project's N by default.")
    limit = serializers.IntegerField(required=False, allow_null=True)
    posterior = serializers.FloatField(required=False, allow_null=True)


class PromotedOut(serializers.Serializer):
    promoted = serializers.IntegerField()


class PageOf(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()


class WorkerRef(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    blocked_everywhere = serializers.BooleanField()


class StandingOut(serializers.Serializer):
    state = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)


class CheckOut(serializers.Serializer):
    assignment = serializers.IntegerField()
    item = serializers.CharField()
    purpose = serializers.CharField()
    expected = serializers.JSONField()
    given = serializers.JSONField()
    score = serializers.FloatField()
    right = serializers.BooleanField()
    method = serializers.CharField()
    scored_at = serializers.DateTimeField()
    round = serializers.IntegerField(allow_null=True, help_text="The training round it counted in; null for gold.")
    given_as_seen = serializers.CharField(allow_null=True, help_text="The answer given, as the worker saw the "
                                          "options (in the order drawn for them); null: shown in import order.")
    given_as_stored = serializers.CharField(allow_blank=True, help_text="The answer given, options named by "
                                            "their import ids; empty when no answer is kept.")
    expected_as_seen = serializers.CharField(allow_null=True, help_text="The known answer, in the places the "
                                             "worker saw; null: shown in import order.")
    expected_as_stored = serializers.CharField(help_text="The known answer, options named by their import ids.")


class CompetenceOut(serializers.Serializer):
    run = serializers.IntegerField()
    value = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)


class SharedReasonOut(serializers.Serializer):
    reason = serializers.CharField()
    other_workers = serializers.IntegerField()


class WorkerFlagOut(serializers.Serializer):
    item = serializers.CharField()
    problem = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    resolution = serializers.CharField(allow_blank=True)


class RuleDecisionBrief(serializers.Serializer):
    kind = serializers.CharField()
    action = serializers.CharField()
    evidence = serializers.JSONField()
    trigger = serializers.CharField(allow_blank=True)
    decided_at = serializers.DateTimeField()
    words = serializers.CharField(allow_null=True, help_text="The evidence and the action in the rules page's words.")


class FirstShownOut(serializers.Serializer):
    answers = serializers.IntegerField(help_text="Counted task answers shown in a drawn order that chose a place.")
    chose_first = serializers.IntegerField(help_text="Of them, those that chose the option shown first.")
    share = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True, help_text="95% Wilson interval of the share.")
    high = serializers.FloatField(allow_null=True)
    expected = serializers.FloatField(allow_null=True, help_text="The share the drawn orders predict with no "
                                      "position bias (1/k for one choice among k options).")
    words = serializers.CharField(help_text="The same in one sentence, or why there is nothing to judge.")


class TrainingRoundOut(serializers.Serializer):
    kind = serializers.CharField()
    number = serializers.IntegerField()
    items = serializers.IntegerField()
    answered = serializers.IntegerField()
    right = serializers.IntegerField()
    passed = serializers.BooleanField(allow_null=True, help_text="Null while the round is open.")
    pass_mark = serializers.FloatField()


class WorkerBonusOut(serializers.Serializer):
    amount = serializers.CharField(help_text="A decimal string.")
    currency = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    paid_at = serializers.DateTimeField(allow_null=True)


# ``label`` is also a Field attribute: see annotation.api.schema.staff on such names.
class AnswerRowOut(serializers.Serializer):
    assignment = serializers.IntegerField()
    item = serializers.CharField()
    purpose = serializers.CharField()
    status = serializers.CharField()
    seconds = serializers.FloatField(allow_null=True)
    label = serializers.CharField(allow_blank=True)  # type: ignore[assignment]
    as_seen = serializers.CharField(allow_null=True, help_text="The answer as the worker saw the options (in the "
                                    "order drawn for them); null: shown in import order.")
    as_stored = serializers.CharField(help_text="The answer as stored, options named by their import ids.")
    reason = serializers.CharField(allow_blank=True)
    submitted_at = serializers.DateTimeField(allow_null=True)
    signals = free()
    review_note = serializers.CharField(allow_blank=True)


class AnswersPage(PageOf):
    rows = AnswerRowOut(many=True)


class WorkerPageOut(serializers.Serializer):
    worker = WorkerRef()
    standing = StandingOut()
    assignments = counts("Assignments per status.")
    gold = free("Gold questions: n, hits, share, and the interval low and high (null without answers).")
    checks = CheckOut(many=True)
    agreement = free("Agreement with the crowd: n, hits, share, low, high.")
    competence = CompetenceOut(allow_null=True, help_text="From the latest MACE run; null without one.")
    signals = counts("Authenticity signals counted over the worker's answers.")
    shared_reasons = SharedReasonOut(many=True)
    reason_review = serializers.CharField(allow_null=True, allow_blank=True)
    flags = WorkerFlagOut(many=True)
    rule_decisions = RuleDecisionBrief(many=True)
    first_shown = FirstShownOut(allow_null=True, help_text="How often the worker chose the option shown first; "
                                "null for a type that shows no options in a drawn order.")
    training_rounds = TrainingRoundOut(many=True)
    bonuses = WorkerBonusOut(many=True)
    answers = AnswersPage(help_text="The worker's answers, paged by `?page=`.")


class WorkerActionIn(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True,
                                 help_text="Why: required to approve or reject; kept with each assignment.")
    amount = serializers.CharField(required=False, help_text="bonus: a decimal amount.")
    currency = serializers.CharField(required=False, help_text="bonus: ISO 4217 code.")
    reason = serializers.CharField(required=False, allow_blank=True, help_text="bonus: what it is for.")


class WorkerActionOut(serializers.Serializer):
    action = serializers.CharField()
    detail = serializers.CharField(help_text="What was done, in words.")
    count = serializers.IntegerField(help_text="Assignments, rounds or bonuses it touched.")


class FlagDetailOut(serializers.Serializer):
    id = serializers.IntegerField()
    problem = serializers.ChoiceField(choices=ItemFlag.Problem.choices)
    reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)
    resolution = serializers.CharField(allow_blank=True)


class FlaggedItemOut(serializers.Serializer):
    item = serializers.CharField(help_text="The item's external id.")
    item_id = serializers.IntegerField()
    kind = serializers.CharField()
    open = serializers.IntegerField(help_text="Open flags.")
    total = serializers.IntegerField()
    flags = FlagDetailOut(many=True)


class FlagsOut(PageOf):
    items = FlaggedItemOut(many=True)


class WithdrawnOut(serializers.Serializer):
    item = serializers.CharField()
    kind = serializers.CharField()
    n_active = serializers.IntegerField()


class DismissedOut(serializers.Serializer):
    item = serializers.CharField()
    dismissed = serializers.IntegerField(help_text="Flags dismissed.")


class ContestOut(serializers.Serializer):
    reason = serializers.CharField()
    text = serializers.CharField()


class ContestedItemOut(serializers.Serializer):
    item = serializers.CharField()
    item_id = serializers.IntegerField()
    kind = serializers.CharField()
    summary = serializers.CharField(allow_blank=True, help_text="The item in a few words.")
    contested = ContestOut(many=True)


class AdjudicationQueueOut(PageOf):
    counts = counts("Contested items per reason.")
    posterior_run = serializers.IntegerField(allow_null=True, help_text="The MACE run whose posteriors were read.")
    items = ContestedItemOut(many=True)


class AdjudicationIn(serializers.Serializer):
    answer = serializers.JSONField(help_text="The task type's gold fields.")
    why = serializers.CharField(required=False, allow_blank=True)
    make_gold = serializers.BooleanField(required=False, help_text="A gold question's gold answer becomes the "
                                                                   "decision.")


class AdjudicationOut(serializers.Serializer):
    item = serializers.CharField()
    item_id = serializers.IntegerField()
    answer = serializers.JSONField()
    why = serializers.CharField(allow_blank=True)
    contested = serializers.JSONField(help_text="The reasons the item was contested when decided.")
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField()


class FlagIn(serializers.Serializer):
    problem = serializers.ChoiceField(choices=ItemFlag.Problem.choices)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)


class FlagOut(serializers.Serializer):
    id = serializers.IntegerField()
    assignment = serializers.IntegerField()
    problem = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()


class QualificationRoundOut(serializers.Serializer):
    round = serializers.IntegerField()
    items = serializers.IntegerField()
    pass_mark = serializers.FloatField()
