"""The form of a quality rule on the staff page; its checks are the service's
(``annotation.services.rule_settings.rule_clean``), the same as the API's."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.models import QualityRule
from annotation.services.rule_settings import RuleInvalid, rule_clean


class RuleForm(forms.Form):
    kind = forms.ChoiceField(choices=QualityRule.Kind.choices)
    action = forms.ChoiceField(choices=QualityRule.Action.choices, initial=QualityRule.Action.REVIEW)
    threshold = forms.FloatField(help_text="Gold accuracy or competence: the bar (0 to 1) the interval must lie "
                                 "below. Too fast: the share of too-fast answers the interval must lie above. "
                                 "Position bias: the excess first-shown rate. Unused for automated browsers.",
                                 initial=0.0)
    min_answers = forms.IntegerField(initial=5, help_text="Answers (gold answers for gold accuracy) before the rule judges.")
    share_of_median = forms.FloatField(initial=0.25, help_text="Too fast: answers below this share of the median time.")
    confidence = forms.FloatField(initial=0.95, help_text="Coverage of the interval the rule judges by.")
    enabled = forms.BooleanField(required=False, initial=True)

    def __init__(self, *args: Any, rule: QualityRule | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.rule = rule
        if rule is not None:
            self.fields["kind"].disabled = True

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            return rule_clean(data=data, rule=self.rule)
        except RuleInvalid as refused:
            for name, message in refused.errors.items():
                self.add_error(name if name in self.fields else None, f"{name}: {message}")
        return data
