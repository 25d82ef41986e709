"""The parameter form of a report, as the result pages render it.

Each input is named ``param_<name>``, the name the run start view reads parameters from; a
boolean is a checkbox preceded by a hidden ``false`` so that an unticked box still says so (the
last value of a name wins). Values are checked when the run is created, not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analysis.reports import Param, Report
from analysis.selectors import comparable_projects
from annotation.models import Project

PREFIX = "param_"


def _display(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    return str(value)


@dataclass(frozen=True)
class ParamField:
    param: Param
    value: Any
    # For a project parameter: the projects it may name, as (slug, name).
    projects: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return f"{PREFIX}{self.param.name}"

    @property
    def id(self) -> str:
        return f"id_{self.name}"

    @property
    def label(self) -> str:
        return self.param.label or self.param.name

    @property
    def input(self) -> str:
        if self.param.type is bool:
            return "checkbox"
        if self.param.project:
            return "project"
        if self.param.choices is not None:
            return "select"
        if self.param.type in (int, float):
            return "number"
        return "text"

    @property
    def step(self) -> str:
        # Any fraction for floats: a step would make the browser refuse a value typed before.
        return "1" if self.param.type is int else "any"

    @property
    def choices(self) -> list[tuple[str, bool]]:
        return [(str(c), c == self.value) for c in self.param.choices or ()]

    @property
    def project_choices(self) -> list[tuple[str, str, bool]]:
        """(slug, text, selected): none first, then the projects; a project the run named that is
        no longer offered (deleted) stays listed, so that the form says what the run used."""
        choices = [("", "none", not self.value)]
        choices += [(slug, f"{name} ({slug})", slug == self.value) for slug, name in self.projects]
        if self.value and self.value not in {slug for slug, _ in self.projects}:
            choices.append((str(self.value), f"{self.value} (not found)", True))
        return choices

    @property
    def min_text(self) -> str:
        return "" if self.param.minimum is None else str(self.param.minimum)

    @property
    def max_text(self) -> str:
        return "" if self.param.maximum is None else str(self.param.maximum)

    @property
    def value_text(self) -> str:
        return "" if self.value is None else str(self.value)

    @property
    def default_text(self) -> str:
        return "none" if self.param.project else _display(self.param.default)

    @property
    def changed(self) -> bool:
        return self.value != self.param.default


def param_groups(report: Report, values: Mapping[str, Any] | None = None, *,
                 project: Project | None = None) -> list[tuple[str, list[ParamField]]]:
    """The report's parameters under their group headings, in declaration order, each with the
    value to show (``values`` where given, else the default); a project parameter offers the
    other projects of ``project``'s task type."""
    values = values or {}
    projects: tuple[tuple[str, str], ...] = ()
    if project is not None and any(p.project for p in report.params):
        projects = tuple(comparable_projects(project=project).values_list("slug", "name"))
    groups: dict[str, list[ParamField]] = {}
    for p in report.params:
        groups.setdefault(p.group or "Settings", []).append(
            ParamField(p, values.get(p.name, p.default), projects if p.project else ()))
    return list(groups.items())
