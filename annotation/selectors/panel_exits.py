"""Where a worker who arrived by a project's study link goes when done or screened out: the
parameters their link carried (kept in the session), handed to the project's provider."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from annotation.models import Project
from annotation.providers.base import Exit
from annotation.providers.registry import provider_of
from annotation.selectors.annotator import MARKETPLACE_PROJECT


def arrival_params(*, session: Mapping, project: Project) -> dict[str, str] | None:
    """The panel parameters recorded when the worker arrived by this project's link; None for a
    worker who did not (a lab account, an invited annotator): no panel is theirs to go back to."""
    if session.get(MARKETPLACE_PROJECT) != project.slug:
        return None
    return dict(session.get("marketplace") or {})


def completion_exit(*, project: Project, params: Mapping[str, str] | None) -> Exit | None:
    """Where a finished panel arrival goes; None for anyone else (``params`` None), who stays on
    the platform's own page even when the panel's template needs no parameter of theirs."""
    provider = provider_of(project) if params is not None else None
    return None if provider is None or params is None else provider.completion_exit(project=project, params=params)


def screened_out_exit(*, project: Project, policy: Any, params: Mapping[str, str] | None) -> Exit | None:
    """Where a screened-out panel arrival goes; None for anyone else (``params`` None)."""
    provider = provider_of(project) if params is not None else None
    if provider is None or params is None:
        return None
    return provider.screened_out_exit(project=project, url=policy.screened_out_url, code=policy.screened_out_code,
                                      params=params)


def origin_of(*, url: str) -> str:
    """scheme://host of a URL (what a Content-Security-Policy source names)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
