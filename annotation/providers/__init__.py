"""Recruiting providers: the marketplaces and panels that send workers to a project, seen by the
engine only through the few questions of ``Provider`` (docs/development.md, "Recruiting
providers"). A provider registers itself when Django loads its app (``recruiting.apps``), so the
engine imports no recruiting code; a project with no panel (``Project.panel`` empty) asks none.
Where a worker goes when done or screened out is read through ``annotation.selectors.panel_exits``.
"""

from annotation.providers.base import (
    CUSTOM_PANEL,
    CUSTOM_SOURCE_RE,
    NO_PANEL,
    PARAM_RE,
    Exit,
    LinkSetup,
    Provider,
)
from annotation.providers.registry import (
    UnknownProvider,
    provider_choices,
    provider_get,
    provider_of,
    provider_register,
    provider_unregister,
    providers,
)

__all__ = [
    "CUSTOM_PANEL",
    "CUSTOM_SOURCE_RE",
    "NO_PANEL",
    "PARAM_RE",
    "Exit",
    "LinkSetup",
    "Provider",
    "UnknownProvider",
    "provider_choices",
    "provider_get",
    "provider_of",
    "provider_register",
    "provider_unregister",
    "providers",
]
