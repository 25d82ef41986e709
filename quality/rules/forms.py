"""The form of a quality rule on the staff page; its checks are the service's
(``quality.services.rules.settings.rule_clean``), the same as the API's."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.rule_defaults import DEFAULTS
from quality.models import QualityRule
from quality.services.rules.settings import RuleInvalid, rule_clean


class RuleForm(forms.Form):
    kind = forms.ChoiceField(choices=QualityRule.Kind.choices)
    action = forms.ChoiceField(choices=QualityRule.Action.choices, initial=QualityRule.Action.REVIEW)
    threshold = forms.FloatField(help_text="The bar. Gold accuracy: the accuracy (above 0, at most 1) a worker "
                                 "must keep. Competence: the MACE competence the interval must reach. Too fast: "
                                 "the share of too-fast answers tolerated (above 0, below 1). Position bias: how "
                                 "much more often than 1 in k choosing the option shown first is tested for "
                                 "(above 0). Unused for automated browsers.")
    min_answers = forms.IntegerField(help_text="Answers (gold answers for gold accuracy) before the rule judges.")
    share_of_median = forms.FloatField(help_text="Too fast: answers below this share of the median time.")
    confidence = forms.FloatField(help_text="One minus the rule's error over the whole study: at 0.95 a worker "
                                  "exactly at the bar is decided about in at most 5% of studies.")
    enabled = forms.BooleanField(required=False, initial=True)

    def __init__(self, *args: Any, rule: QualityRule | None = None, kind: str | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # A new rule starts from the valid defaults of its kind (gold accuracy unless asked).
        kind = kind if kind in DEFAULTS else QualityRule.Kind.GOLD_ACCURACY
        for name, value in {"kind": kind, **DEFAULTS[kind]}.items():
            self.fields[name].initial = value
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
