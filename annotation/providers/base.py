"""The provider contract: what the engine asks a recruiting marketplace or panel about a
project that takes its workers. Every answer has a default that asks nothing, so a panel that
only hands out study links overrides only where its workers go."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The project's panel when it takes no workers from a panel (``Project.panel``).
NO_PANEL = ""
# The panel of a project's own study link, set by its fields (``Project.worker_param`` …).
CUSTOM_PANEL = "custom"
# A query parameter a panel puts a worker's id or another value in.
PARAM_RE = re.compile(r"^[A-Za-z0-9_.-]{1,60}$")
# A panel or custom name: never "+", which separates it from the worker id in user names.
CUSTOM_SOURCE_RE = re.compile(r"^[a-z0-9_-]{1,40}$")


@dataclass(frozen=True)
class Exit:
    """Where a worker goes: a link (``post`` empty) or a form posting ``post`` to ``url``."""

    url: str
    post: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class LinkSetup:
    """How a project's study link names its workers: ``worker_param`` carries the worker's id,
    known as (``source``, id); ``params`` are the parameters kept with each answer (the worker
    id's among them); ``preview``, when set, is the (parameter, value) of a preview of the task
    (MTurk's), which takes no item."""

    source: str
    name: str
    worker_param: str
    params: tuple[str, ...]
    preview: tuple[str, str] | None = None


class Provider:
    """A recruiting marketplace or panel, registered by its ``key`` (the value of
    ``Project.panel``); ``name`` is what the forms show; a worker arriving by its study link
    carries their id in ``worker_param``."""

    key: str
    name: str
    worker_param: str = "worker_id"

    def link_setup(self, *, project: Any) -> LinkSetup:
        """How the project's study link names its workers (the provider's own parameter, kept
        with each answer, by default)."""
        return LinkSetup(source=self.key, name=self.name, worker_param=self.worker_param,
                         params=(self.worker_param,))

    def may_take_items(self, *, project: Any, worker: Any) -> bool:
        """Whether the worker may still be handed items: False once they left the study on the
        marketplace (returned it, timed out, were rejected there)."""
        return True

    def worker_screened_out(self, *, project: Any, worker: Any) -> None:
        """A worker was screened out, their place freed: tell the marketplace (in the caller's
        transaction; work outside the database waits for the commit)."""

    def completion_exit(self, *, project: Any, params: Mapping[str, str]) -> Exit | None:
        """Where a worker who arrived by the project's study link goes when done; None: they stay
        on the platform's own page."""
        return None

    def screened_out_exit(self, *, project: Any, url: str, code: str, params: Mapping[str, str]) -> Exit | None:
        """Where a screened-out arrival goes: the project's own template ``url`` (empty: the
        provider's) with the screen-out ``code``; None: the platform's own page."""
        return None

    def settings_check(self, *, project: Any) -> None:
        """Raise ``django.core.exceptions.ValidationError`` naming the field when the project's
        panel settings do not hold together for this provider."""

    def exit_template_check(self, *, project: Any, template: str, field_name: str) -> None:
        """Raise ``ValidationError`` naming ``field_name`` when ``template`` (a project's own
        screened-out URL, say) is no exit this provider can fill in."""

    def study_link(self, *, project: Any, start_url: str) -> str | None:
        """The link the staff paste into the panel: the project's start URL (``start_url``) with
        the panel's placeholders; None: the provider has no link to paste."""
        return None
