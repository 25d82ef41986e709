"""The Django admin of the crowd workflow, one module per area; importing them registers them."""

from annotation.admin import bonuses, media, projects  # noqa: F401
