"""Settings, driven by the environment (every variable: docs/configuration.md).

With nothing set, the project runs embedded: SQLite next to manage.py, and Celery jobs on a
broker that is a folder (run `make run` or `manage.py serve` to have a worker). ``DATABASE_URL``
switches to PostgreSQL and ``REDIS_URL`` to Redis as broker and cache.

One module per integration; ``DJANGO_SETTINGS_MODULE=config.settings`` gathers them here. A
module reads what it needs of another by importing it, so the order below does not matter.
"""

from config.settings.api import *  # noqa: F403
from config.settings.api_schema import *  # noqa: F403
from config.settings.backends import *  # noqa: F403
from config.settings.base import *  # noqa: F403
from config.settings.database import *  # noqa: F403
from config.settings.jobs import *  # noqa: F403
from config.settings.mail import *  # noqa: F403
from config.settings.marketplaces import *  # noqa: F403
from config.settings.security import *  # noqa: F403
from config.settings.storage import *  # noqa: F403
