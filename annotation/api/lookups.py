"""The project an API path names, for views in any app: the project, or the one 404 of
``annotation.api.unseen``."""

from __future__ import annotations

from annotation.api.unseen import unseen
from annotation.models import Project


def project_or_404(slug: str) -> Project:
    project = Project.objects.filter(slug=slug).first()
    if project is None:
        raise unseen()
    return project
