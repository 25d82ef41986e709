"""The project form's task-type options: the fields of the task type's options form, shown in
the admin instead of a raw JSON box, and saved into ``Project.options``."""

from __future__ import annotations

import json

from django import forms
from django.core.serializers.json import DjangoJSONEncoder

from annotation.models import Project
from annotation.task_types.base import TaskType

PREFIX = "option_"


def project_form_with_options(base: type[forms.ModelForm], task: TaskType) -> type[forms.ModelForm]:
    """``base`` with one field per option of ``task``, initialised from the project's options;
    ``task`` must have an options form."""
    options_form = task.options_form
    if options_form is None:
        raise TypeError(f"the {task.name} task type has no options form")
    fields = {f"{PREFIX}{name}": field for name, field in options_form().fields.items()}

    def __init__(self, *args, **kwargs):
        base.__init__(self, *args, **kwargs)
        current = task.clean_options(self.instance.options) if self.instance.pk else task.option_defaults()
        for name in task.option_defaults():
            self.initial.setdefault(f"{PREFIX}{name}", current.get(name))

    def clean(self):
        cleaned = base.clean(self)
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

    attrs = {**fields, "__init__": __init__, "clean": clean, "__module__": __name__}
    return type(f"{base.__name__}With{type(task).__name__}Options", (base,), attrs)


def json_safe(value: object) -> object:
    """``value`` as plain JSON values: Decimals become their exact text, dates ISO text."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def options_from_form(project: Project, cleaned: dict) -> dict:
    """The project's options with the form's option fields written into them."""
    chosen = {name[len(PREFIX):]: value for name, value in cleaned.items() if name.startswith(PREFIX)}
    return {**(project.options or {}), **chosen}
