"""Links that the apps above the crowd engine add to a project's staff overview.

The engine knows nothing of those apps: each registers, in its ``AppConfig.ready``, a function
of the project that returns (URL, link text) pairs; the overview shows them in the order the
apps registered (the order of ``INSTALLED_APPS``), each app's links in the order it gives.
"""

from __future__ import annotations

from collections.abc import Callable

from annotation.models import Project

StaffLinks = Callable[[Project], list[tuple[str, str]]]
_PROVIDERS: list[StaffLinks] = []


def staff_links_register(provider: StaffLinks) -> StaffLinks:
    """Add a provider of links to the staff overview (once, however often it is registered)."""
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)
    return provider


def quality_links(project: Project) -> list[tuple[str, str]]:
    """The engine's own quality-control pages, after those of the apps above it."""
    from django.urls import reverse

    return [(reverse("quality", kwargs={"slug": project.slug}), "Quality control"),
            (reverse("adjudication", kwargs={"slug": project.slug}), "Adjudication"),
            (reverse("flags", kwargs={"slug": project.slug}), "Flagged items")]


def staff_links(*, project: Project) -> list[tuple[str, str]]:
    """(URL, link text) of the pages other apps offer about this project, then the engine's
    quality-control pages."""
    return [link for provider in _PROVIDERS for link in provider(project)] + quality_links(project)
