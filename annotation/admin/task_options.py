"""The project form's task-type options: the fields of the task type's options form, shown in
the admin instead of a raw JSON box, and saved into ``Project.options``.

On the add form the type is chosen on the page, so the options shown may be another type's (or
none, without JavaScript to fetch the chosen type's). A hidden field says whose options were on
the page; when it is not the chosen type, the form is sent back with that type's options at
their defaults, to check, instead of saving options nobody saw."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.serializers.json import DjangoJSONEncoder
from django.http import QueryDict

from annotation.models import Project
from annotation.task_types import UnknownTaskType, get_task_type
from annotation.task_types.base import TaskType

PREFIX = "option_"
# The hidden field naming the type whose options were on the page.
SHOWN_FOR = "options_of"


def _as_form_data(data: QueryDict, name: str, field: forms.Field, value: Any) -> None:
    """Write ``value`` into ``data`` as the browser would post ``field``'s widget."""
    data.pop(name, None)
    if isinstance(field, forms.BooleanField):
        if value:
            data[name] = "on"
    elif isinstance(value, (list, tuple)):
        data.setlist(name, [str(v) for v in value])
    elif value is not None:
        data[name] = str(value)


def project_form_with_options(base: type[forms.ModelForm], task: TaskType) -> type[forms.ModelForm]:
    """``base`` with one field per option of ``task``, initialised from the project's options;
    ``task`` must have an options form."""
    options_form = task.options_form
    if options_form is None:
        raise TypeError(f"the {task.name} task type has no options form")
    fields: dict[str, forms.Field] = {f"{PREFIX}{name}": field for name, field in options_form().fields.items()}
    shown_for = forms.CharField(widget=forms.HiddenInput, required=False, initial=task.slug)

    def __init__(self, *args, **kwargs):
        base.__init__(self, *args, **kwargs)
        current = task.clean_options(self.instance.options) if self.instance.pk else task.option_defaults()
        for name in task.option_defaults():
            self.initial.setdefault(f"{PREFIX}{name}", current.get(name))
        self.options_unseen = self.is_bound and not self.instance.pk and self.data.get(SHOWN_FOR) != task.slug
        if self.options_unseen:
            data = self.data.copy()
            for name, value in task.option_defaults().items():
                _as_form_data(data, f"{PREFIX}{name}", fields[f"{PREFIX}{name}"], value)
            data[SHOWN_FOR] = task.slug
            self.data = data

    def clean(self):
        cleaned = base.clean(self)
        if self.options_unseen:
            raise forms.ValidationError(
                f"The {task.name} task type has options, shown below with their defaults: check them and save again."
            )
        options = {name[len(PREFIX):]: cleaned.get(name) for name in fields}
        try:
            checked = task.clean_options(options)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        # What is saved is what the type's own options form cleans (its clean_<field> methods
        # included), made JSON-safe: the fields copied here return Decimals, dates and the like,
        # which Project.options (JSON) cannot hold.
        for name in fields:
            cleaned[name] = json_safe(checked.get(name[len(PREFIX):]))
        return cleaned

    attrs = {**fields, SHOWN_FOR: shown_for, "__init__": __init__, "clean": clean, "__module__": __name__}
    return type(f"{base.__name__}With{type(task).__name__}Options", (base,), attrs)


def json_safe(value: object) -> object:
    """``value`` as plain JSON values: Decimals become their exact text, dates ISO text."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def options_from_form(project: Project, cleaned: dict) -> dict:
    """The project's options with the form's option fields written into them."""
    chosen = {name[len(PREFIX):]: value for name, value in cleaned.items() if name.startswith(PREFIX)}
    return {**(project.options or {}), **chosen}


def other_options_of(project: Project) -> dict[str, Any]:
    """What the project's options record holds besides the task type's typed options (records
    kept there, keys of no field): all of it for a type without an options form."""
    try:
        task: TaskType | None = get_task_type(project.task_type)
    except UnknownTaskType:
        task = None
    typed = set(task.option_defaults()) if task is not None and task.options_form is not None else set()
    return {key: value for key, value in (project.options or {}).items() if key not in typed}


def is_option_field(name: str) -> bool:
    """Whether a project form field belongs in the task-type options' fieldset."""
    return name.startswith(PREFIX) or name == SHOWN_FOR
