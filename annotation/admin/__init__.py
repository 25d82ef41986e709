"""The Django admin of the crowd workflow, one module per area; importing them registers them.
State changes go through the services, never through raw model saves."""

from annotation.admin import accounts, audit, media, projects, workflow  # noqa: F401
