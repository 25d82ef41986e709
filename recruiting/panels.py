"""Recruiting panels: which query parameter of a study link carries the worker's id, which other
parameters are worth keeping, and where a worker goes when done or screened out.

A registry of presets keyed by slug (an unknown slug raises ``UnknownPanel`` naming the known
ones). A project takes workers from one panel (``Project.panel``): a preset, or ``custom`` with
the worker-id parameter, the name and the parameters the project sets. A worker's identity is
(panel slug or custom name, worker id), so no link passes a worker off as another panel's.

URL templates hold ``{code}`` (the completion or screen-out code), ``{worker_id}`` and
``{PARAMETER}`` for any parameter the panel records; values are URL-encoded, except a panel's
*base* parameters (MTurk's ``turkSubmitTo``), which must match the panel's pattern or are
replaced by its default. Pure: no ORM; a project is read through its attributes only.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from annotation.providers.base import CUSTOM_PANEL, CUSTOM_SOURCE_RE, PARAM_RE, Exit

CUSTOM = CUSTOM_PANEL
SOURCE_NAME_RE = CUSTOM_SOURCE_RE
_URL = URLValidator(schemes=["http", "https"])


class UnknownPanel(KeyError):
    def __init__(self, slug: str) -> None:
        super().__init__(slug)
        self.slug = slug

    def __str__(self) -> str:
        return f"Unknown panel “{self.slug}”; known: {', '.join(sorted(PANELS))}, or {CUSTOM}."


@dataclass(frozen=True)
class BaseParam:
    """A parameter that is the start of a URL (not encoded): accepted only when it matches."""

    pattern: str
    default: str


@dataclass(frozen=True)
class Panel:
    slug: str
    name: str
    worker_param: str
    # Other parameters kept with each answer, to match payments to work.
    extra_params: tuple[str, ...] = ()
    # What to write for each parameter in the study link handed to the panel (its placeholder);
    # empty when the panel appends its parameters itself.
    link_values: tuple[tuple[str, str], ...] = ()
    completion_url: str = ""
    screened_out_url: str = ""
    # Form fields posted to the completion URL (empty: it is a link to follow).
    completion_post: tuple[str, ...] = ()
    # (parameter, value) of a preview: the task is shown, no account is made.
    preview: tuple[str, str] | None = None
    base_params: Mapping[str, BaseParam] = field(default_factory=dict)
    # A completion URL to copy from the panel, when it has no fixed one.
    completion_example: str = ""

    @property
    def params(self) -> tuple[str, ...]:
        return (self.worker_param, *self.extra_params)


PROLIFIC = Panel(
    slug="prolific", name="Prolific", worker_param="PROLIFIC_PID", extra_params=("STUDY_ID", "SESSION_ID"),
    link_values=(("PROLIFIC_PID", "{{%PROLIFIC_PID%}}"), ("STUDY_ID", "{{%STUDY_ID%}}"),
                 ("SESSION_ID", "{{%SESSION_ID%}}")),
    completion_url="https://app.prolific.com/submissions/complete?cc={code}",
    screened_out_url="https://app.prolific.com/submissions/complete?cc={code}",
)
MTURK = Panel(
    slug="mturk", name="Amazon Mechanical Turk", worker_param="workerId",
    extra_params=("assignmentId", "hitId", "turkSubmitTo"),
    completion_url="{turkSubmitTo}/mturk/externalSubmit", completion_post=("assignmentId",),
    preview=("assignmentId", "ASSIGNMENT_ID_NOT_AVAILABLE"),
    base_params={"turkSubmitTo": BaseParam(r"^https://(www|workersandbox)\.mturk\.com$", "https://www.mturk.com")},
)
CLOUDRESEARCH = Panel(
    slug="cloudresearch", name="CloudResearch Connect", worker_param="participantId",
    extra_params=("assignmentId", "projectId"),
    completion_example="https://connect.cloudresearch.com/participant/project/PROJECT/complete",
)
SONA = Panel(
    slug="sona", name="SONA Systems", worker_param="id", link_values=(("id", "%SURVEY_CODE%"),),
    completion_example="https://SCHOOL.sona-systems.com/webstudy_credit.aspx?experiment_id=123"
                       "&credit_token=TOKEN&survey_code={worker_id}",
)
PANELS: dict[str, Panel] = {p.slug: p for p in (PROLIFIC, MTURK, CLOUDRESEARCH, SONA)}


def panel_get(slug: str) -> Panel:
    try:
        return PANELS[slug]
    except KeyError:
        raise UnknownPanel(slug) from None


def panel_choices() -> list[tuple[str, str]]:
    return [(p.slug, p.name) for p in PANELS.values()] + [(CUSTOM, "Custom link")]


def parse_params(value: str) -> list[str]:
    return [s.strip() for s in (value or "").split(",") if s.strip()]


@dataclass(frozen=True)
class PanelSetup:
    """What a project's settings make of its panel."""

    source: str  # the first half of a worker's identity
    name: str
    worker_param: str
    params: tuple[str, ...]
    completion_url: str
    screened_out_url: str
    completion_post: tuple[str, ...] = ()
    preview: tuple[str, str] | None = None
    base_params: Mapping[str, BaseParam] = field(default_factory=dict)
    link_values: tuple[tuple[str, str], ...] = ()


def panel_setup(project: Any) -> PanelSetup:
    """The project's panel as its settings make it: ``completion_url`` is the project's template,
    or the preset's when the project leaves it empty; ``screened_out_url`` is the preset's (the
    project's own is a quality setting, ``QualityPolicy.screened_out_url``, which comes first)."""
    own_done = project.completion_url or ""
    if project.panel == CUSTOM:
        param = project.worker_param or "worker_id"
        extras = tuple(p for p in parse_params(project.extra_params) if p != param)
        return PanelSetup(source=project.custom_source or "link", name=project.custom_source or "link",
                          worker_param=param, params=(param, *extras), completion_url=own_done,
                          screened_out_url="")
    panel = panel_get(project.panel)
    return PanelSetup(source=panel.slug, name=panel.name, worker_param=panel.worker_param, params=panel.params,
                      completion_url=own_done or panel.completion_url,
                      screened_out_url=panel.screened_out_url, completion_post=panel.completion_post,
                      preview=panel.preview, base_params=panel.base_params, link_values=panel.link_values)


def template_names(template: str) -> set[str]:
    """The placeholders of a URL template; ValueError for a malformed one."""
    names = set()
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        # A "." would read an attribute of the value; such parameters cannot be placeholders.
        if not name or spec or conversion or not PARAM_RE.match(name) or "." in name or name.isdigit():
            raise ValueError(f"“{{{name}}}” is not a placeholder; write {{code}}, {{worker_id}} or {{PARAMETER}}.")
        names.add(name)
    return names


def template_host_fixed(template: str, *, setup: PanelSetup) -> bool:
    """True when no value can move the URL's scheme or host: every placeholder stands after the
    host, once a ``/``, ``?`` or ``#`` has ended it (``https://panel.example.com{ret}/done``
    would let a worker's value extend the host). A panel's base parameter, itself checked
    against its pattern, may stand for the scheme and host at the start."""
    rendered = ""
    for literal, name, _, _ in string.Formatter().parse(template):
        rendered += literal
        if name is None:
            continue
        if name in setup.base_params and not rendered:
            rendered = setup.base_params[name].default
            continue
        _, sep, after_scheme = rendered.partition("://")
        return bool(sep) and any(mark in after_scheme for mark in "/?#")
    return True


def template_check(template: str, *, setup: PanelSetup, field_name: str) -> None:
    """Refuse a template with unknown placeholders or that does not make an http(s) URL."""
    if not template:
        return
    try:
        names = template_names(template)
    except ValueError as exc:
        raise ValidationError({field_name: str(exc)}) from None
    known = {"code", "worker_id", *setup.params}
    unknown = sorted(names - known)
    if unknown:
        raise ValidationError({field_name: f"Unknown placeholders {', '.join('{' + n + '}' for n in unknown)}; "
                                           f"known: {', '.join('{' + n + '}' for n in sorted(known))}."})
    if not template_host_fixed(template, setup=setup):
        raise ValidationError({field_name: "Placeholders may stand only after the host (after the first / ? "
                                           "or # that follows https://HOST): a worker's value must not be "
                                           "able to change where the link leads."})
    sample = {n: setup.base_params[n].default if n in setup.base_params else "x" for n in names}
    try:
        _URL(template.format(**sample))
    except ValidationError:
        raise ValidationError({field_name: "Enter a URL starting with https:// (or http://), with placeholders "
                                           "only where the panel's values go."}) from None


def panel_settings_check(project: Any) -> None:
    """ValidationError naming the field for panel settings that do not hold together."""
    if project.panel != CUSTOM:
        try:
            panel_get(project.panel)
        except UnknownPanel as exc:
            raise ValidationError({"panel": str(exc)}) from None
    else:
        if not project.worker_param:
            raise ValidationError({"worker_param": "A custom panel needs the parameter that carries the worker id."})
        if project.custom_source in PANELS:
            # Else a custom link could pass a worker off as that panel's.
            raise ValidationError({"custom_source": f"“{project.custom_source}” is a preset's name; choose the "
                                                    "preset, or another name."})
        bad = [p for p in parse_params(project.extra_params) if not PARAM_RE.match(p)]
        if bad:
            raise ValidationError({"extra_params": "Parameter names hold only letters, digits, _, . and -: "
                                                   + ", ".join(repr(p) for p in bad)})
    setup = panel_setup(project)
    template_check(project.completion_url or "", setup=setup, field_name="completion_url")


def exit_url(*, setup: PanelSetup, template: str, code: str, params: Mapping[str, str],
             worker_id: str = "") -> Exit | None:
    """The template filled in with the worker's values; None when one it needs is missing."""
    if not template:
        return None
    try:
        names = template_names(template)
    except ValueError:
        return None  # stored before templates were checked: no way out rather than a broken one
    if not template_host_fixed(template, setup=setup):
        return None  # stored before hosts were checked: no link whose host a worker's value moves
    values: dict[str, str] = {}
    for name in names:
        if name in setup.base_params:
            base = setup.base_params[name]
            raw = (params.get(name) or "").rstrip("/")
            values[name] = raw if re.match(base.pattern, raw) else base.default
            continue
        if name == "code":
            raw = code
        elif name == "worker_id":
            raw = worker_id or params.get(setup.worker_param, "")
        else:
            raw = params.get(name, "")
        if not raw:
            return None
        values[name] = quote(raw, safe="")
    post = []
    for name in setup.completion_post:
        if not params.get(name):
            return None
        post.append((name, params[name]))
    if post and code:
        post.append(("completion_code", code))  # an answer field beside the assignment id
    try:
        url = template.format(**values)
    except (KeyError, IndexError, ValueError):
        return None
    return Exit(url=url, post=tuple(post))


def study_link(*, setup: PanelSetup, start_url: str) -> str:
    """The link to paste into the panel: the start URL with the panel's placeholders (the panel
    fills them in per worker); a custom panel's worker id stands as WORKER_ID."""
    values = setup.link_values
    if not values and setup.source not in PANELS:
        values = ((setup.worker_param, "WORKER_ID"),)
    if not values:
        return start_url
    return start_url + "?" + "&".join(f"{k}={v}" for k, v in values)


