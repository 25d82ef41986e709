"""Query and form fields with a NUL character, refused with a 400 before a view uses them.

Django's form fields already refuse ``\\x00``, but views that read ``request.GET`` or
``request.POST`` directly (join codes, marketplace links) passed it to the database, where
SQLite matched nothing and PostgreSQL failed the request with a 500. Such views take the
``refuse_nul_fields`` decorator. The answer form is not one of them: there a NUL is reported
on its field by the answer's validation, and the client details are cleaned. JSON bodies are
checked by the API's parser, uploaded files by the importers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render

from annotation.value_checks import text_problem


def _first_problem(fields: QueryDict) -> tuple[str, str] | None:
    for name, values in fields.lists():
        for text in (name, *values):
            problem = text_problem(text)
            if problem:
                return name, problem
    return None


def refuse_nul_fields(view: Callable) -> Callable:
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        found = _first_problem(request.GET) or (_first_problem(request.POST) if request.method == "POST" else None)
        if found is None:
            return view(request, *args, **kwargs)
        field, problem = found
        return render(request, "annotation/message.html", {
            "title": "This request cannot be used",
            "text": f"The field '{field}' {problem}. Please check the link or what you typed.",
        }, status=400)

    return wrapped
