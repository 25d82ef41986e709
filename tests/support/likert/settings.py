"""The project's settings with the toy type installed: its one line in INSTALLED_APPS."""

from config.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.support.likert"]  # noqa: F405
