"""Each rule's evidence in words, from the figures it decided on."""

from __future__ import annotations

from analysis.methods.intervals import wilson, z_for
from quality.models import QualityRule
from quality.rules.words import evidence_words
from quality.services.rules.verdicts import gold_accuracy_evidence, too_fast_evidence


def test_gold_accuracy_reads_as_wrong_answers_and_the_tests_ratio_against_what_it_needs():
    rule = QualityRule(kind="gold_accuracy", threshold=0.7, confidence=0.95, min_answers=5)
    evidence = gold_accuracy_evidence(rule=rule, right=2, answered=12)
    said = evidence_words(kind="gold_accuracy", action="block", evidence=evidence)
    # 10 wrong, 2 right: (0.45/0.3)^10 (0.55/0.7)^2 = 35.6 times; the rule needs 1/0.05 = 20.
    assert said == ("10 of 12 gold answers wrong (accuracy 17%): 36 times likelier for a worker at 55% than at the "
                    "bar of 70%, past the 20 times the rule needs (a worker at the bar: at most 5% of studies): blocked")


def test_a_wrong_answer_against_a_bar_of_perfect_accuracy_is_infinite_evidence_stored_as_none():
    rule = QualityRule(kind="gold_accuracy", threshold=1.0, confidence=0.95, min_answers=2)
    evidence = gold_accuracy_evidence(rule=rule, right=1, answered=2)
    assert evidence["llr"] is None
    said = evidence_words(kind="gold_accuracy", action="block", evidence=evidence)
    assert said.startswith("1 of 2 gold answers wrong (accuracy 50%): infinitely likelier for a worker at 85% than "
                           "at the bar of 100%")


def test_too_fast_reads_with_server_time_and_the_tests_ratio():
    rule = QualityRule(kind="too_fast", threshold=0.1, confidence=0.95, min_answers=5, share_of_median=0.25)
    evidence = too_fast_evidence(rule=rule, fast=5, answers=5, median=12.4, cutoff=3.1)  # (0.55/0.1)^5 = 5,033
    said = evidence_words(kind="too_fast", action="review", evidence=evidence)
    assert said.startswith("5 of 5 answers faster than 3.1 s (25% of the project's median of 12.4 s, server time): "
                           "100%; 5,033 times likelier for a worker with 55% such answers than at the bar of 10%")


def test_a_decision_recorded_with_an_interval_keeps_its_wording():
    low, high = wilson(2, 9, z=z_for(0.95))
    said = evidence_words(kind="gold_accuracy", action="block", evidence={
        "right": 2, "answered": 9, "accuracy": 2 / 9, "low": low, "high": high, "confidence": 0.95, "threshold": 0.7})
    assert said == "2 of 9 gold answers right (22%, 95% interval 6–55%), below the bar of 70%: blocked"


def test_every_kind_says_its_figures_and_the_action():
    assert evidence_words(kind="too_fast", action="review", evidence={
        "too_fast": 12, "answers": 40, "cutoff": 3.1, "share_of_median": 0.25, "median": 12.4, "share": 0.3,
        "low": 0.18, "high": 0.45, "confidence": 0.95, "threshold": 0.1}) == (
        "12 of 40 answers faster than 3.1 s (25% of the project's median of 12.4 s): 30%, 95% interval 18–45%, "
        "above the bar of 10%: sent to review")
    assert evidence_words(kind="automation", action="block", evidence={"automated": 3, "answers": 40, "min_answers": 2}) == (
        "3 of 40 answers sent from an automated browser (navigator.webdriver), at least the 2 the rule allows: blocked")
    said = evidence_words(kind="position_bias", action="block", evidence={
        "share": 0.75, "low": 0.6, "high": 0.87, "expected": 0.5, "excess": 0.1, "answers": 40, "chose_first": 30,
        "threshold": 0.05, "run": 3})
    assert said.startswith("Chose the option shown first in 30 of 40 answers (75%, interval 60–87%)")
    assert "predict 50%: at least 10 points more, above the bar of 5 points (run 3): blocked" in said
    said = evidence_words(kind="competence", action="review", evidence={
        "competence": 0.1, "low": 0.05, "high": 0.3, "answers": 40, "run": 3, "replicates": 50, "threshold": 0.5})
    assert said == ("MACE competence 0.10 over 40 answers (95% interval 0.05–0.30, 50 resamples of items, run 3), "
                    "below the bar of 0.50: sent to review")


def test_evidence_of_another_shape_is_listed_rather_lost():
    said = evidence_words(kind="gold_accuracy", action="block", evidence={"right": "x", "answered": 3, "accuracy": "n/a"})
    assert said.endswith(": blocked") and "answered 3" in said
