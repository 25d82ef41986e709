"""The registry of recruiting providers, keyed by ``Provider.key``; an unknown key raises
``UnknownProvider`` naming the known ones (house rule 6)."""

from __future__ import annotations

from typing import Any

from annotation.providers.base import NO_PANEL, Provider

_REGISTRY: dict[str, Provider] = {}


class UnknownProvider(KeyError):
    def __init__(self, key: str) -> None:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        super().__init__(f"unknown panel {key!r}; known panels: {known}")
        self.key = key

    def __str__(self) -> str:
        return str(self.args[0])


def provider_register(provider: Provider) -> Provider:
    """Register a provider under its key (again: the same class replaces itself, as a reloaded
    module does; another class under a taken key is an error)."""
    taken = _REGISTRY.get(provider.key)
    if taken is not None and type(taken) is not type(provider):
        raise ValueError(f"panel {provider.key!r} is registered twice")
    _REGISTRY[provider.key] = provider
    return provider


def provider_unregister(key: str) -> None:
    """Forget a provider (a test's own, when the test ends)."""
    _REGISTRY.pop(key, None)


def provider_get(key: str) -> Provider:
    try:
        return _REGISTRY[key]
    except KeyError:
        raise UnknownProvider(key) from None


def provider_of(project: Any) -> Provider | None:
    """The project's provider; None for a project that takes no workers from a panel, which the
    engine then asks nothing."""
    key = getattr(project, "panel", NO_PANEL) or NO_PANEL
    return None if key == NO_PANEL else provider_get(key)


def providers() -> list[Provider]:
    return [p for _, p in sorted(_REGISTRY.items())]


def provider_choices() -> list[tuple[str, str]]:
    """The choices of ``Project.panel``: none, then the registered providers in the order they
    registered."""
    return [(NO_PANEL, "None"), *((p.key, p.name) for p in _REGISTRY.values())]
