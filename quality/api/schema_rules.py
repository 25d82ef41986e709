"""The quality rules' API (``quality.api.rules``) as the OpenAPI schema describes it: the rules
and their decisions. The views build these answers by hand; these serializers only describe them
and never run."""

from __future__ import annotations

from rest_framework import serializers

from quality.models import QualityRule


class RuleFields(serializers.Serializer):
    action = serializers.ChoiceField(choices=QualityRule.Action.choices, required=False)
    threshold = serializers.FloatField(required=False, help_text="The bar; its meaning depends on the kind.")
    min_answers = serializers.IntegerField(required=False, min_value=0)
    share_of_median = serializers.FloatField(required=False)
    confidence = serializers.FloatField(required=False)
    enabled = serializers.BooleanField(required=False)


class RuleIn(RuleFields):
    kind = serializers.ChoiceField(choices=QualityRule.Kind.choices)


class RuleOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=QualityRule.Kind.choices)
    action = serializers.ChoiceField(choices=QualityRule.Action.choices)
    threshold = serializers.FloatField()
    min_answers = serializers.IntegerField()
    share_of_median = serializers.FloatField()
    confidence = serializers.FloatField()
    enabled = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class DecisionOut(serializers.Serializer):
    id = serializers.IntegerField()
    worker = serializers.CharField(help_text="The worker's user name.")
    worker_id = serializers.IntegerField()
    worker_url = serializers.CharField(allow_null=True, help_text="The worker's quality page.")
    rule = serializers.IntegerField(allow_null=True, help_text="Null once the rule was deleted.")
    kind = serializers.ChoiceField(choices=QualityRule.Kind.choices)
    action = serializers.ChoiceField(choices=QualityRule.Action.choices)
    evidence = serializers.JSONField(help_text="The figures decided on (estimate, interval, counts).")
    words = serializers.CharField(help_text="The evidence in a sentence.")
    trigger = serializers.CharField()
    decided_at = serializers.DateTimeField()


class FindingOut(serializers.Serializer):
    worker = serializers.CharField(help_text="The worker's user name.")
    worker_id = serializers.IntegerField()
    worker_url = serializers.CharField(allow_null=True, help_text="The worker's quality page.")
    rule = serializers.IntegerField(help_text="The rule that found the worker beyond its bar.")
    kind = serializers.ChoiceField(choices=QualityRule.Kind.choices)
    evidence = serializers.JSONField(help_text="The rule's figures about the worker.")
    words = serializers.CharField(help_text="The evidence in a sentence.")
    decision = serializers.IntegerField(allow_null=True, help_text="The new decision's id (null: none new).")
    decided = serializers.CharField(help_text='The decision in words: "new: block in the project", "new: send to '
                                              'review" or "none new (already decided on this evidence, or already '
                                              'there)".')


class UnjudgedOut(serializers.Serializer):
    rule = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=QualityRule.Kind.choices)
    why = serializers.CharField(help_text="Why the rule cannot judge the project.")


class RulesCheckOut(serializers.Serializer):
    decisions = DecisionOut(many=True, help_text="The decisions this check made.")
    found = serializers.DictField(child=serializers.IntegerField(), help_text="Rule id -> workers below its bar.")
    runs = serializers.DictField(child=serializers.IntegerField(allow_null=True),
                                 help_text="Report kind -> the run judged (null: none).")
    findings = FindingOut(many=True, help_text="Each worker a rule found beyond its bar, as the rules page lists them.")
    unjudged = UnjudgedOut(many=True, help_text="The enabled rules that could not judge the project, and why.")


class DecisionsPageOut(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    results = DecisionOut(many=True)
