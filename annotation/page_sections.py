"""Sections that the apps above the crowd engine add to its pages and to the pages of the apps
between (quality control's worker page), without the page's app importing them.

A page names its places (``OVERVIEW``: the project's staff overview, below its links and
notices; ``WORKER_HEADER`` and ``WORKER_END``: the worker page's first lines and its end). An app
registers, in its ``AppConfig.ready``, a section for a place: a template (``file`` or
``file#partial``) and a function of the page's subject (the project, and the worker on a worker
page) that returns the section's value, or None when it has nothing to show there. The page
renders each place's sections in the order they registered, with ``value`` in the template's
context beside the page's own. A section may also give its value as JSON (``data``), which the
page's API then carries under the section's ``key``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

OVERVIEW = "overview"
WORKER_HEADER = "worker-header"
WORKER_END = "worker-end"
PLACES = (OVERVIEW, WORKER_HEADER, WORKER_END)


@dataclass(frozen=True)
class Section:
    key: str
    template: str
    read: Callable[..., Any]
    data: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Shown:
    """A section with its value, as a page renders it."""

    key: str
    template: str
    value: Any


_SECTIONS: dict[str, dict[str, Section]] = {place: {} for place in PLACES}


def section_register(place: str, section: Section) -> Section:
    """Add a section to a place (again under the same key: it replaces itself, as a reloaded app
    does)."""
    if place not in _SECTIONS:
        raise ValueError(f"unknown place {place!r}; known places: {', '.join(PLACES)}")
    _SECTIONS[place][section.key] = section
    return section


def section_unregister(place: str, key: str) -> None:
    _SECTIONS[place].pop(key, None)


def sections_shown(place: str, **subject: Any) -> list[Shown]:
    """The place's sections that have something to show for the subject, with their values."""
    shown = []
    for section in _SECTIONS[place].values():
        value = section.read(**subject)
        if value is not None:
            shown.append(Shown(section.key, section.template, value))
    return shown


def sections_data(place: str, **subject: Any) -> dict[str, Any]:
    """The JSON of the place's sections that give one: key -> value (null when nothing to show)."""
    out = {}
    for section in _SECTIONS[place].values():
        if section.data is not None:
            value = section.read(**subject)
            out[section.key] = None if value is None else section.data(value)
    return out
