"""Reports: what an analysis run computes, registered by kind.

A report declares its parameters (with defaults, types and bounds, checked when a run is created)
and a ``run`` function that composes pure methods over the long frame into a JSON result.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import pandas as pd

Progress = Callable[[float, str], None]

# A report may put a list of Part under this key of its result: large tables that are stored
# apart from the result, in pieces (see ``analysis.models.RunPart``), and not in it.
PARTS = "_parts"


@dataclass(frozen=True)
class Part:
    name: str
    key: str
    rows: list[dict[str, Any]]
    indexes: list[int]


class UnknownReport(KeyError):
    def __init__(self, kind: str) -> None:
        super().__init__(f"unknown analysis kind {kind!r}; known kinds: {', '.join(sorted(_reports())) or 'none'}")

    def __str__(self) -> str:
        return self.args[0]


class ParamError(ValueError):
    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"parameter '{name}': {message}")
        self.name = name


@dataclass(frozen=True)
class Param:
    name: str
    type: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple | None = None
    # What a form calls it, and the heading it sits under; every parameter of a report has both.
    label: str = ""
    group: str = ""
    # A str parameter that names another project of the same task type by its slug (empty: none).
    # The service checks it when a run is created; the run gets that project's input in
    # ``ReportInput.others`` under the parameter's name; the form offers the projects to choose.
    project: bool = False

    def __post_init__(self) -> None:
        if self.project and (self.type is not str or self.default not in ("", None)):
            raise TypeError(f"parameter {self.name!r}: a project parameter is a str that defaults to none")

    @property
    def type_name(self) -> str:
        return self.type.__name__

    def clean(self, value: Any) -> Any:
        if value is None or value == "":
            return self.default
        if self.project:
            return str(value).strip() or self.default
        try:
            if self.type is bool:
                if isinstance(value, str):
                    if value.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                        raise ValueError(value)
                    value = value.lower() in ("1", "true", "yes", "on")
                cleaned = bool(value)
            else:
                cleaned = self.type(value)
        except (TypeError, ValueError):
            raise ParamError(self.name, f"must be {self.type.__name__}, got {value!r}") from None
        if self.choices is not None and cleaned not in self.choices:
            raise ParamError(self.name, f"must be one of {', '.join(map(str, self.choices))}, got {cleaned!r}")
        if self.minimum is not None and cleaned < self.minimum:
            raise ParamError(self.name, f"must be at least {self.minimum}, got {cleaned!r}")
        if self.maximum is not None and cleaned > self.maximum:
            raise ParamError(self.name, f"must be at most {self.maximum}, got {cleaned!r}")
        return cleaned


@dataclass(frozen=True)
class ReportInput:
    """What a report gets: the long frame and facts about the project it came from."""

    frame: pd.DataFrame  # the long frame of annotations
    items: pd.DataFrame  # one row per item: item, gold and the task type's item columns
    task_type: str
    redundancy: int
    # The task type's label level (nominal, ordinal, interval or set) and ordered categories.
    level: str = "nominal"
    categories: tuple = ()
    # The project's options, cleaned by the task type.
    options: Mapping[str, Any] = field(default_factory=dict)
    # The input of each other project that a project parameter of the run names, by parameter.
    others: Mapping[str, ReportInput] = field(default_factory=dict)


class Report(ABC):
    kind: ClassVar[str]
    title: ClassVar[str]
    params: ClassVar[tuple[Param, ...]] = ()
    # Task types the report applies to; None for all.
    task_types: ClassVar[tuple[str, ...] | None] = None
    # The page that shows the report's results: a URL name taking the project's slug, or None
    # for the generic report page, which renders ``template`` with ``page_context``; and the link
    # text that leads there. Generic pages list them without naming task types.
    page: ClassVar[str | None] = None
    page_label: ClassVar[str]
    template: ClassVar[str | None] = None
    # Figures (SVG) and files the generic page serves from a finished run: name → link text.
    figures: ClassVar[dict[str, str]] = {}
    files: ClassVar[dict[str, str]] = {}
    # Whether the report reads the annotators' reasons: the frame of a run leaves them out
    # (an empty column) otherwise, since on a large project they are most of its memory.
    reads_reasons: ClassVar[bool] = False
    # Whether the report reads which option each worker was shown first: the frame of a run then
    # has a ``first`` column (``analysis.presentation.shown_first_frame``).
    reads_shown_order: ClassVar[bool] = False

    def applies_to(self, task_type: str) -> bool:
        return self.task_types is None or task_type in self.task_types

    def clean_params(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        raw = dict(raw or {})
        known = {p.name for p in self.params}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ParamError(unknown[0], f"not a parameter of {self.kind}; known: {', '.join(sorted(known))}")
        return {p.name: p.clean(raw.get(p.name)) for p in self.params}

    @abstractmethod
    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        """Compute the result (JSON-serialisable), calling ``progress(fraction, stage)`` now and then."""

    @property
    def page_key(self) -> str:
        """What names this report's page among ``report_pages`` (an address by ``page_url``)."""
        return self.page or f"report:{self.kind}"

    def page_context(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """Extra context of the generic page's template for a finished run's result."""
        return {}

    def figure(self, name: str, result: Mapping[str, Any]) -> str:
        """The SVG of one of ``figures``."""
        raise KeyError(name)

    def file(self, name: str, result: Mapping[str, Any]) -> tuple[str, list[str], list[dict[str, Any]]]:
        """One of ``files``: (file name, columns, rows)."""
        raise KeyError(name)


def decided_labels(items: pd.DataFrame, field: str) -> pd.Series:
    """Item -> the adjudicated value of answer field ``field``, for the items a staff member
    decided, when the project prefers adjudicated answers in its gold data (the item frame then
    has an ``adjudicated`` column); empty otherwise. A gold export that picks one label per item
    takes these over its aggregate."""
    import pandas as pd

    if "adjudicated" not in items.columns:
        return pd.Series(dtype=object)
    pairs = [(item, decided[field]) for item, decided in zip(items["item"], items["adjudicated"], strict=True)
             if isinstance(decided, dict) and decided.get(field) is not None]
    return pd.Series([v for _, v in pairs], index=[i for i, _ in pairs], dtype=object)


_REPORTS: dict[str, Report] = {}
# Reports named by their class's dotted path, imported when the registry is first read: a report
# brings its methods (numpy, pandas, scikit-learn), which a process that never reads the
# registry (a management command, a worker of imports) should not load at start-up.
_PENDING: list[str] = ["analysis.reports.agreement.AgreementReport", "analysis.reports.position_bias.PositionBiasReport"]


def register(cls: type[Report]) -> type[Report]:
    _REPORTS[cls.kind] = cls()
    return cls


def register_lazily(path: str) -> None:
    """Register the report class at ``path`` ("package.module.Class") when the registry is first
    read; task-type apps call it from their ``ready``."""
    _PENDING.append(path)


def _reports() -> dict[str, Report]:
    while _PENDING:
        module, _, name = _PENDING.pop(0).rpartition(".")
        register(getattr(import_module(module), name))
    return _REPORTS


def get_report(kind: str) -> Report:
    try:
        return _reports()[kind]
    except KeyError:
        raise UnknownReport(kind) from None


def report_kinds(task_type: str | None = None) -> list[tuple[str, str]]:
    return [(k, r.title) for k, r in sorted(_reports().items()) if task_type is None or r.applies_to(task_type)]


def report_pages(task_type: str | None) -> list[tuple[str, str]]:
    """(page key, link text) of the result pages of the reports that apply to a task type (or of
    all reports, for None), the reports for every task type first. A key is a URL name taking the
    project's slug, or ``report:<kind>`` for the generic report page (see ``page_url``)."""
    pages: dict[str, str] = {}
    for report in sorted(_reports().values(), key=lambda r: (r.task_types is not None, r.kind)):
        if task_type is None or report.applies_to(task_type):
            pages.setdefault(report.page_key, report.page_label)
    return list(pages.items())


def page_url(key: str, slug: str) -> str:
    """The address of a report page named by its key (see ``report_pages``)."""
    from django.urls import reverse

    if key.startswith("report:"):
        return reverse("report-page", kwargs={"slug": slug, "kind": key.removeprefix("report:")})
    return reverse(key, kwargs={"slug": slug})
