"""Every route of the project's URLconf (config/urls.py with the task types' mounted urls), with
its view, and a way to fill its parameters: for tests that must cover each endpoint, including
one added later."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver

PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


@dataclass(frozen=True)
class Route:
    route: str  # as written in the URLconf, e.g. "api/assignments/<int:pk>/submit/"
    name: str | None
    callback: Callable[..., Any]
    default_kwargs: Mapping[str, Any]

    @property
    def view_class(self) -> type | None:
        """The DRF (or class-based) view behind the route, if any."""
        return getattr(self.callback, "cls", None) or getattr(self.callback, "view_class", None)

    @property
    def is_drf(self) -> bool:
        from rest_framework.views import APIView

        cls = self.view_class
        return cls is not None and issubclass(cls, APIView)

    @property
    def parameters(self) -> dict[str, str]:
        """{name: converter} of the route's parameters."""
        return {m["name"]: m["converter"] or "str" for m in PARAMETER.finditer(self.route)}

    def url(self, values: Mapping[str, Any]) -> str:
        return "/" + PARAMETER.sub(lambda m: str(values[m["name"]]), self.route)


def routes(*, skip: tuple[str, ...] = ("admin/",)) -> Iterator[Route]:
    """The routes of the URLconf, in order, without those under the ``skip`` prefixes."""

    def walk(patterns, prefix: str) -> Iterator[Route]:
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                route = prefix + str(p.pattern)
                if not route.startswith(skip):
                    yield Route(route, p.name, p.callback, p.default_args)

    yield from walk(get_resolver().url_patterns, "")
