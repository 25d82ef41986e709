"""Task types, registered by slug.

``get_task_type("pairwise")`` returns the instance; an unknown slug raises ``UnknownTaskType``
naming the known ones. A new task type is a module here that calls ``register``.
"""

from annotation.task_types.base import TaskType

_REGISTRY: dict[str, TaskType] = {}


class UnknownTaskType(KeyError):
    def __init__(self, slug: str) -> None:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        super().__init__(f"unknown task type {slug!r}; known task types: {known}")
        self.slug = slug

    def __str__(self) -> str:
        return self.args[0]


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


def task_type_choices() -> list[tuple[str, str]]:
    return [(slug, t.name) for slug, t in sorted(_REGISTRY.items())]


# Imported for their registration side effect; keep this list in slug order.
from annotation.task_types import pairwise  # noqa: E402, F401
