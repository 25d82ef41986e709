"""Linking a project to a Prolific study, changing the link's settings, and unlinking.

The API token is no part of the link: it is a secret setting (``PROLIFIC_API_TOKEN``) that no
page or answer shows, only whether one is configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from annotation.models import Project
from annotation.services.audit import audit_record
from recruiting.models import ProlificStudy

FIELDS = ("study_id", "poll_seconds", "auto_approve", "auto_reject")


class LinkRefused(Exception):
    """Bad link settings: ``errors`` maps each field at fault to what is wrong."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = dict(errors)


def prolific_study_link(*, project: Project, data: Mapping[str, Any], actor: User | None) -> ProlificStudy:
    """Link the project to a study, or change its link (only the fields given change). Raises
    LinkRefused naming each field at fault; nothing is written then."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise LinkRefused({name: f"unknown field; known: {', '.join(FIELDS)}" for name in unknown})
    with transaction.atomic():
        study = ProlificStudy.objects.select_for_update().filter(project=project).first()
        before = {f: getattr(study, f) for f in FIELDS} if study is not None else {}
        study = study or ProlificStudy(project=project)
        if study.pk is None and "study_id" not in data:
            raise LinkRefused({"study_id": "the study id is required to link a study"})
        for name, value in data.items():
            if name in ("auto_approve", "auto_reject") and not isinstance(value, bool):
                raise LinkRefused({name: "must be true or false"})
            if name == "poll_seconds" and (isinstance(value, bool) or not isinstance(value, int)):
                raise LinkRefused({name: "must be a whole number of seconds"})
            if name == "study_id":
                value = str(value).strip() if isinstance(value, str) else value
                if not isinstance(value, str):
                    raise LinkRefused({name: "must be text"})
            setattr(study, name, value)
        try:
            study.full_clean(exclude=["project"])
        except ValidationError as exc:
            raise LinkRefused({k: " ".join(v) for k, v in exc.message_dict.items()}) from None
        try:
            with transaction.atomic():
                study.save()
        except IntegrityError:
            raise LinkRefused({"study_id": "another project is linked to this study"}) from None
        after = {f: getattr(study, f) for f in FIELDS}
        audit_record(actor=actor, action="prolific_link", project=project, target=f"study {study.study_id}",
                     details={"from": before, "to": after})
    return study


def prolific_study_unlink(*, project: Project, actor: User | None) -> bool:
    """Remove the project's link (its submission records go with it); False when there was none."""
    with transaction.atomic():
        study = ProlificStudy.objects.select_for_update().filter(project=project).first()
        if study is None:
            return False
        audit_record(actor=actor, action="prolific_unlink", project=project, target=f"study {study.study_id}")
        study.delete()
    return True
