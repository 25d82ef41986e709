"""Writes of a project's recruiting-panel settings (``recruiting.panels``): the panel, a custom
panel's parameter, name and recorded parameters, the completion code and URL template, and
whether panel links are taken at all. Checked as the admin form checks them, written at once
with an audit entry, or not at all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Project
from annotation.services.projects import project_settings_record

PANEL_SETTINGS = ("external_entry", "panel", "worker_param", "custom_source", "extra_params",
                  "completion_code", "completion_url")


def project_panel_update(*, project: Project, values: Mapping[str, Any], actor: User | None) -> Project:
    """Change any of ``PANEL_SETTINGS``; ValidationError naming each field refused (an unknown
    panel lists the known ones), and then nothing is written."""
    unknown = sorted(set(values) - set(PANEL_SETTINGS))
    if unknown:
        raise ValidationError({name: "Not a panel setting." for name in unknown})
    with transaction.atomic():
        locked = Project.objects.select_for_update().get(pk=project.pk)
        before = Project.objects.get(pk=project.pk)
        for name, value in values.items():
            setattr(locked, name, value)
        locked.full_clean()
        locked.save(update_fields=[*values])
        project_settings_record(actor=actor, before=before, after=locked)
    return locked
