"""Every page action has its API twin: the table of ``page_action_table`` lists every page,
admin project tool, admin action and service-backed admin form, and names the API operation that
does the same. A new page or action missing from the table, a row for one that is gone, or a
twin that is not an API operation fails here."""

from __future__ import annotations

import importlib
import importlib.util

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver

from annotation.task_types import task_types
from tests.annotation.api import page_action_table
from tests.annotation.api.page_action_table import BROWSER, READS, TWINS

PAGE_URLCONFS = ["annotation.urls", "analysis.urls", "quality.urls", "recruiting.urls"]
ADMIN_BUILTIN = ("_changelist", "_add", "_change", "_delete", "_history", "_autocomplete")
OWN_PACKAGES = ("annotation", "analysis", "quality", "recruiting", "task_types")
SERVICE_HOOKS = {"save_model": "save", "delete_model": "delete", "delete_queryset": "delete"}


def _names(patterns) -> set[str]:
    found: set[str] = set()
    for p in patterns:
        if isinstance(p, URLResolver):
            found |= _names(p.url_patterns)
        elif isinstance(p, URLPattern) and p.name:
            found.add(p.name)
    return found


def page_keys() -> set[str]:
    """Every page of the site (not the API), every project tool and action of the admin, and
    every admin form that saves or deletes through a service."""
    names: set[str] = set()
    for module in PAGE_URLCONFS:
        names |= _names(importlib.import_module(module).urlpatterns)
    for task in task_types():
        if task.urls:
            names |= _names(importlib.import_module(task.urls).urlpatterns)
    keys = {f"url:{n}" for n in names if not n.startswith("api-")}
    for model, model_admin in admin.site._registry.items():
        if type(model_admin).__module__.split(".")[0] not in OWN_PACKAGES:
            continue  # a library's admin (login lockouts): housekeeping, not the workflow
        label = f"{model._meta.app_label}.{model._meta.model_name}"
        for action in model_admin.actions or ():
            keys.add(f"admin-action:{label}.{action if isinstance(action, str) else action.__name__}")
        for hook, verb in SERVICE_HOOKS.items():
            if any(hook in vars(cls) for cls in type(model_admin).__mro__
                   if cls.__module__.split(".")[0] in OWN_PACKAGES):
                keys.add(f"admin-form:{label}.{verb}")
        prefix = f"{model._meta.app_label}_{model._meta.model_name}"
        keys |= {f"admin:{n}" for n in _names(model_admin.get_urls())
                 if n.startswith(prefix) and not n.endswith(ADMIN_BUILTIN)}
    return keys


def api_names() -> set[str]:
    return {n for n in _names(get_resolver().url_patterns) if n.startswith("api-")}


def listed_pages() -> set[str]:
    """The table's rows, and those a task type keeps in its own folder: a module
    ``<its app>.tests.page_actions`` with ``TWINS``, ``READS`` and ``BROWSER`` as the table's."""
    tables = [page_action_table]
    for task in task_types():
        app = apps.get_containing_app_config(type(task).__module__)
        if app is not None and importlib.util.find_spec(f"{app.name}.tests") is not None \
                and importlib.util.find_spec(f"{app.name}.tests.page_actions") is not None:
            tables.append(importlib.import_module(f"{app.name}.tests.page_actions"))
    return {page for table in tables for page in (*(page for page, _ in getattr(table, "TWINS", {})),
                                                  *getattr(table, "READS", {}), *getattr(table, "BROWSER", {}))}


def test_every_page_action_is_in_the_table():
    listed = listed_pages()
    missing = sorted(page_keys() - listed)
    assert not missing, f"pages or admin actions without a row in page_action_table: {missing}"


def test_no_row_for_a_page_that_is_gone():
    listed = listed_pages()
    assert not sorted(listed - page_keys())


@pytest.mark.parametrize(("page", "what"), sorted(TWINS))
def test_each_twin_is_an_api_operation_with_its_method(page, what):
    name, method = TWINS[(page, what)]
    assert name in api_names(), f"{page} ({what}): no API URL named {name!r}"
    view = _view_of(name)
    assert hasattr(view, method.lower()), f"{name} does not answer {method}"


def test_each_read_names_an_api_operation_or_none():
    unknown = {page: name for page, (name, _) in READS.items() if name is not None and name not in api_names()}
    assert not unknown


def test_the_table_notices_a_new_page(monkeypatch):
    """The check is live: a page action added without a row is found."""
    from django.urls import path

    import annotation.urls

    monkeypatch.setattr(annotation.urls, "urlpatterns",
                        [*annotation.urls.urlpatterns, path("x/", lambda r: None, name="new-page-action")])
    assert "url:new-page-action" in page_keys() - ({page for page, _ in TWINS} | set(READS) | set(BROWSER))


def _view_of(name: str):
    def walk(patterns):
        for p in patterns:
            if isinstance(p, URLResolver):
                found = walk(p.url_patterns)
                if found is not None:
                    return found
            elif isinstance(p, URLPattern) and p.name == name:
                return getattr(p.callback, "view_class", p.callback)
        return None

    return walk(get_resolver().url_patterns)
