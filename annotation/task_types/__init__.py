"""Task types, registered by slug.

``get_task_type(slug)`` returns the instance; an unknown slug raises ``UnknownTaskType`` naming
the known ones. Task types live in apps of their own (``task_types/<slug>/``); each app calls
``register`` in its ``AppConfig.ready``, so nothing here lists the types by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotation.task_types.base import TaskType

if TYPE_CHECKING:
    from django.urls import URLResolver

_REGISTRY: dict[str, TaskType] = {}


class UnknownTaskType(KeyError):
    def __init__(self, slug: str) -> None:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        super().__init__(f"unknown task type {slug!r}; known task types: {known}")
        self.slug = slug

    def __str__(self) -> str:
        return str(self.args[0])


def register(cls: type[TaskType]) -> type[TaskType]:
    slug = cls.slug
    if slug in _REGISTRY and type(_REGISTRY[slug]) is not cls:
        raise ValueError(f"task type {slug!r} is registered twice")
    _REGISTRY[slug] = cls()
    return cls


def get_task_type(slug: str) -> TaskType:
    try:
        return _REGISTRY[slug]
    except KeyError:
        raise UnknownTaskType(slug) from None


# Where ``project_task_type`` keeps the type on a project instance: (slug, type).
_HELD = "_task_type_held"


def project_task_type(project: Any) -> TaskType:
    """The project's task type, looked up once per project instance: a request reads its project
    once and hands that instance down (the next's claim and the item it presents, the submit's
    locked read, scoring and rules), so the type is resolved once per request. Looked up again
    when ``task_type`` changed on the instance."""
    held: tuple[str, TaskType] | None = project.__dict__.get(_HELD)
    if held is None or held[0] != project.task_type:
        held = project.__dict__[_HELD] = (project.task_type, get_task_type(project.task_type))
    return held[1]


def task_type_choices() -> list[tuple[str, str]]:
    return [(slug, t.name) for slug, t in sorted(_REGISTRY.items())]


def task_types() -> list[TaskType]:
    """Every registered task type, in slug order."""
    return [t for _, t in sorted(_REGISTRY.items())]


def type_urlpatterns() -> list[URLResolver]:
    """The URL patterns of every registered type that has pages of its own (``TaskType.urls``)."""
    from django.urls import include, path

    return [path("", include(t.urls)) for t in task_types() if t.urls]
