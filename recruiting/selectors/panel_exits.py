"""Where a worker from a recruiting panel goes when done or screened out: the project's (or the
panel's) URL template filled in with the completion code and the parameters their link carried."""

from __future__ import annotations

from collections.abc import Mapping

from annotation.models import Project
from annotation.quality_port import PolicyRecord
from annotation.selectors.annotator import MARKETPLACE_PROJECT
from recruiting.panels import Exit, exit_url, panel_setup


def arrival_params(*, session: Mapping, project: Project) -> dict[str, str] | None:
    """The panel parameters recorded when the worker arrived by this project's link; None for a
    worker who did not (a lab account, an invited annotator): no panel is theirs to go back to."""
    if session.get(MARKETPLACE_PROJECT) != project.slug:
        return None
    return dict(session.get("marketplace") or {})


def completion_exit(*, project: Project, params: Mapping[str, str] | None) -> Exit | None:
    """Where a finished panel arrival goes; None for anyone else (``params`` None), who stays on
    the platform's own page even when the panel's template needs no parameter of theirs."""
    if params is None:
        return None
    setup = panel_setup(project)
    return exit_url(setup=setup, template=setup.completion_url, code=project.completion_code, params=params)


def screened_out_exit(*, project: Project, policy: PolicyRecord, params: Mapping[str, str] | None) -> Exit | None:
    """Where a screened-out panel arrival goes; None for anyone else (``params`` None)."""
    if params is None:
        return None
    setup = panel_setup(project)
    return exit_url(setup=setup, template=policy.screened_out_url or setup.screened_out_url,
                    code=policy.screened_out_code, params=params)
