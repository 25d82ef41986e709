"""Settings for the recruiting marketplaces' APIs (docs/prolific.md).

The Prolific token is a secret from the environment: it is sent to Prolific only and never shown
in a page, a log line, an error or an export.
"""

from __future__ import annotations

import os

from config.env import env_int

PROLIFIC_API_URL = os.environ.get("PROLIFIC_API_URL", "https://api.prolific.com/api/v1/")
PROLIFIC_API_TOKEN = os.environ.get("PROLIFIC_API_TOKEN", "")
PROLIFIC_TIMEOUT_SECONDS = env_int("PROLIFIC_TIMEOUT_SECONDS", 15)
