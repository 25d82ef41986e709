"""Changing a project's quality-control settings (``QualityPolicy``): validated as the database
would, stored, and recorded in the audit log with what changed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Project
from annotation.providers import provider_of
from annotation.services.audit import audit_record
from annotation.task_types import get_task_type
from quality.models import QualityPolicy
from quality.selectors.settings import settings_not_applying
from quality.services.blocked_answers import blocked_answers_policy_changed

SETTINGS = QualityPolicy.SETTINGS


def quality_policy_update(*, project: Project, values: Mapping[str, Any], actor: User | None) -> QualityPolicy:
    """Set the given settings (any subset of ``settings_for`` the project) of the project's
    policy. Raises ValidationError naming each bad field (a setting its task type does not read
    too, with why); nothing is stored then."""
    unknown = sorted(set(values) - set(SETTINGS))
    if unknown:
        raise ValidationError({name: "is not a quality setting" for name in unknown})
    unused = settings_not_applying(task=get_task_type(project.task_type))
    refused = {name: unused[name] for name in values if name in unused}
    if refused:
        raise ValidationError(refused)
    with transaction.atomic():
        QualityPolicy.objects.get_or_create(project=project)
        policy = QualityPolicy.objects.select_for_update().get(project=project)
        before = {name: getattr(policy, name) for name in SETTINGS}
        for name, value in values.items():
            setattr(policy, name, value)
        # The fields' validators name the field; the table's constraints hold the same bounds.
        policy.full_clean(exclude=["project"], validate_constraints=False)
        # The screened-out URL is a template of the project's panel, checked as its completion URL
        # (without a panel, no worker arrives by a study link to be sent there).
        provider = provider_of(project)
        if provider is not None and policy.screened_out_url:
            provider.exit_template_check(project=project, template=policy.screened_out_url,
                                         field_name="screened_out_url")
        policy.save()
        changed = {name: [before[name], getattr(policy, name)] for name in SETTINGS
                   if before[name] != getattr(policy, name)}
        if changed:
            audit_record(actor=actor, project=project, action="settings", target="quality policy",
                         details={"changed": changed})
        # What review and blocking do, applied to the workers already in those states.
        if "blocked_answers_excluded" in changed:
            blocked_answers_policy_changed(project=project, excluded=policy.blocked_answers_excluded, actor=actor)
    return policy

