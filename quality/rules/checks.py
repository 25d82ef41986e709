"""Judging a project's rules on stored data, and acting on what they find.

- As answers arrive (``quality.services.rules.judging``, ``quality.services.checks``):
  gold accuracy, too fast, position bias and automated browsers, each by its sequential test.
- After every analysis run that finishes (``analysis.services``): the competence rule after an
  agreement run (requested every ``RUN_EVERY`` answers of a worker), and on every run the
  too-fast and automated-browser rules.
- When staff check the rules now: every enabled rule over every worker of the project, from
  stored data: gold accuracy from the workers' running gold counts, too fast and position bias
  from their answers in the order they came, competence from the last finished agreement run.
  The check lists every finding, with whether it made a new decision.

A rule decides about a worker once per basis of evidence (see ``quality.rules.findings``)
and never moves a worker who is already where its action leads (``rule_decide``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from analysis.models import AnalysisRun
from annotation.models import Project
from annotation.services.audit import audit_record
from quality.models import QualityRule, RuleDecision, WorkerStanding
from quality.rules import findings
from quality.rules.findings import Finding
from quality.services.rules.decisions import NOT_MOVED, rule_decide

logger = logging.getLogger(__name__)
Kind = QualityRule.Kind
# The report whose runs each run-reading rule judges.
RUN_KINDS = {Kind.COMPETENCE: "agreement"}


@dataclass(frozen=True)
class Found:
    """One worker a rule found below its bar, and the decision it made (None: none new, since
    the worker is already where the action leads or was decided about on the same evidence)."""

    rule: QualityRule
    worker: User
    finding: Finding
    decision: RuleDecision | None


@dataclass
class RuleCheck:
    """What a check found and decided, rule by rule."""

    decisions: list[RuleDecision] = field(default_factory=list)
    found: dict[int, int] = field(default_factory=dict)  # rule id -> workers below its bar
    runs: dict[str, int | None] = field(default_factory=dict)  # report kind -> run judged
    listed: list[Found] = field(default_factory=list)
    unjudged: list[tuple[QualityRule, str]] = field(default_factory=list)  # rules that cannot judge, and why


def _enabled(project: Project) -> dict[str, list[QualityRule]]:
    rules: dict[str, list[QualityRule]] = {}
    for rule in QualityRule.objects.filter(project=project, enabled=True).order_by("pk"):
        rules.setdefault(rule.kind, []).append(rule)
    return rules


def _last_run(project: Project, kind: str) -> AnalysisRun | None:
    return (AnalysisRun.objects.filter(project=project, kind=kind, status=AnalysisRun.Status.DONE)
            .order_by("-finished_at", "-pk").first())


def _apply(*, project: Project, found: dict[QualityRule, list[Finding]], trigger: str,
           check: RuleCheck) -> None:
    """Decide on what the rules found, skipping (without a query each) the workers already where
    the action leads and the findings already decided on the same basis."""
    found = {rule: hits for rule, hits in found.items() if hits}
    for rule, hits in found.items():
        check.found[rule.pk] = check.found.get(rule.pk, 0) + len(hits)
    if not found:
        return
    wanted = {hit.worker_id for hits in found.values() for hit in hits}
    states = dict(WorkerStanding.objects.filter(project=project, worker_id__in=wanted)
                  .values_list("worker_id", "state"))
    decided = set(RuleDecision.objects.filter(project=project, rule__in=list(found), worker_id__in=wanted)
                  .values_list("rule_id", "worker_id", "evidence__basis"))
    users = get_user_model().objects.in_bulk(wanted)
    for rule, hits in found.items():
        for hit in hits:
            if (states.get(hit.worker_id) in NOT_MOVED[QualityRule.Action(rule.action)]
                    or (rule.pk, hit.worker_id, hit.basis) in decided):
                check.listed.append(Found(rule, users[hit.worker_id], hit, None))
                continue
            decision = rule_decide(rule=rule, project=project, worker=users[hit.worker_id], evidence=hit.evidence,
                                   trigger=trigger)
            check.listed.append(Found(rule, users[hit.worker_id], hit, decision))
            if decision is not None:
                check.decisions.append(decision)
                states[hit.worker_id] = WorkerStanding.State.BLOCKED if rule.action == QualityRule.Action.BLOCK \
                    else WorkerStanding.State.REVIEW
            decided.add((rule.pk, hit.worker_id, hit.basis))


def _answer_rules(project: Project, rules: dict[str, list[QualityRule]]) -> dict[QualityRule, list[Finding]]:
    """The rules judged on the stored answers after a run: too fast and automated browsers."""
    by_id = {rule.pk: rule for kind in (Kind.TOO_FAST, Kind.AUTOMATION) for rule in rules.get(kind, [])}
    hits = findings.automation(project=project, rules=rules.get(Kind.AUTOMATION, []))
    if rules.get(Kind.TOO_FAST):
        hits.update(findings.too_fast(table=findings.timed_answers(project=project), rules=rules[Kind.TOO_FAST]))
    return {by_id[pk]: found for pk, found in hits.items()}


def _run_rules(run: AnalysisRun, rules: Iterable[QualityRule]) -> dict[QualityRule, list[Finding]]:
    return {rule: findings.competence(run=run, rule=rule) for rule in rules}


def rules_after_run(*, run: AnalysisRun) -> list[RuleDecision]:
    """Judge the project's enabled rules that read this finished run, and the rules on answers."""
    if run.status != AnalysisRun.Status.DONE:
        return []
    project = run.project
    rules = _enabled(project)
    found = _answer_rules(project, rules)
    for kind, report in RUN_KINDS.items():
        if run.kind == report:
            found.update(_run_rules(run, rules.get(kind, [])))
    check = RuleCheck()
    _apply(project=project, found=found, trigger=f"analysis run {run.pk} ({run.kind})", check=check)
    return check.decisions


def rules_check(*, project: Project, actor: User | None = None) -> RuleCheck:
    """Judge every enabled rule of the project over all its workers, from stored data."""
    rules = _enabled(project)
    check = RuleCheck()
    found = _answer_rules(project, rules)
    for rule in rules.get(Kind.GOLD_ACCURACY, []):
        found[rule] = findings.gold_accuracy(project=project, rule=rule)
    unjudged = findings.position_bias_unjudged(project=project)
    for rule in rules.get(Kind.POSITION_BIAS, []):
        if unjudged is not None:
            check.unjudged.append((rule, unjudged))
        else:
            found[rule] = findings.position_bias(project=project, rule=rule)
    for kind, report in RUN_KINDS.items():
        if not rules.get(kind):
            continue
        run = _last_run(project, report)
        check.runs[report] = run.pk if run else None
        if run is not None:
            found.update(_run_rules(run, rules[kind]))
    who = actor.get_username() if actor is not None and actor.is_authenticated else "the platform"
    _apply(project=project, found=found, trigger=f"rule check by {who}", check=check)
    audit_record(actor=actor, project=project, action="rule_check", target=f"project {project.slug}",
                 details={"rules": sum(len(v) for v in rules.values()), "decisions": len(check.decisions),
                          "runs": check.runs})
    return check


def rules_after_run_safely(*, run: AnalysisRun) -> list[RuleDecision]:
    """rules_after_run for the run's completion: a fault in a rule is logged and leaves the
    finished run as it is."""
    try:
        return rules_after_run(run=run)
    except Exception:
        logger.exception("the quality rules could not judge %s", run)
        return []
