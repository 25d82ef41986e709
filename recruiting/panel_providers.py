"""The recruiting panels as providers of the engine's contract (``annotation.providers``): each
preset of ``recruiting.panels`` and the custom link answer where a worker goes from the
project's settings; Prolific also says who left its study and hears of screen-outs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.providers import Exit, LinkSetup, Provider, provider_register
from recruiting.panels import (
    CUSTOM,
    PANELS,
    Panel,
    exit_url,
    panel_settings_check,
    panel_setup,
    study_link,
    template_check,
)


class PanelProvider(Provider):
    """A panel whose workers arrive by a study link and leave by the project's templates."""

    def __init__(self, *, key: str, name: str) -> None:
        self.key, self.name = key, name

    def completion_exit(self, *, project: Any, params: Mapping[str, str]) -> Exit | None:
        setup = panel_setup(project)
        return exit_url(setup=setup, template=setup.completion_url, code=project.completion_code, params=params)

    def screened_out_exit(self, *, project: Any, url: str, code: str, params: Mapping[str, str]) -> Exit | None:
        setup = panel_setup(project)
        return exit_url(setup=setup, template=url or setup.screened_out_url, code=code, params=params)

    def link_setup(self, *, project: Any) -> LinkSetup:
        setup = panel_setup(project)
        return LinkSetup(source=setup.source, name=setup.name, worker_param=setup.worker_param, params=setup.params,
                         preview=setup.preview)

    def settings_check(self, *, project: Any) -> None:
        panel_settings_check(project)

    def exit_template_check(self, *, project: Any, template: str, field_name: str) -> None:
        template_check(template, setup=panel_setup(project), field_name=field_name)

    def study_link(self, *, project: Any, start_url: str) -> str | None:
        return study_link(setup=panel_setup(project), start_url=start_url)


class ProlificProvider(PanelProvider):
    """Prolific: its submissions say who left the study, and a screen-out is sent to it."""

    def may_take_items(self, *, project: Any, worker: Any) -> bool:
        from recruiting.selectors.prolific import withdrawn_from_study

        return not withdrawn_from_study(project_id=project.pk, worker_id=worker.pk)

    def worker_screened_out(self, *, project: Any, worker: Any) -> None:
        # A participant of a linked Prolific study is screened out there too, by a sync.
        from recruiting.services.prolific.queue import prolific_sync_soon

        prolific_sync_soon(project_id=project.pk)


def panel_provider(panel: Panel) -> PanelProvider:
    kind = ProlificProvider if panel.slug == "prolific" else PanelProvider
    return kind(key=panel.slug, name=panel.name)


def panels_register() -> None:
    """Register every preset and the custom link (``recruiting.apps``)."""
    for panel in PANELS.values():
        provider_register(panel_provider(panel))
    provider_register(PanelProvider(key=CUSTOM, name="Custom link"))
