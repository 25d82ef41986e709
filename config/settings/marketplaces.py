"""Settings for the recruiting marketplaces' APIs (docs/prolific.md).

The Prolific token is a secret from the environment: it is sent to Prolific only and never shown
in a page, a log line, an error or an export.
"""

from __future__ import annotations

from config.settings.env import env_int, env_str, env_url

PROLIFIC_API_URL = env_url("PROLIFIC_API_URL", "https://api.prolific.com/api/v1/", schemes=("https", "http"))
PROLIFIC_API_TOKEN = env_str("PROLIFIC_API_TOKEN", "")
PROLIFIC_TIMEOUT_SECONDS = env_int("PROLIFIC_TIMEOUT_SECONDS", 15)
# The secret Prolific signs webhook deliveries with (POST /api/v1/hooks/secrets/ makes it); empty:
# webhook deliveries are refused and polling alone keeps submissions in step.
PROLIFIC_WEBHOOK_SECRET = env_str("PROLIFIC_WEBHOOK_SECRET", "")
# A delivery whose timestamp is further than this from now is refused as stale (seconds).
PROLIFIC_WEBHOOK_TOLERANCE_SECONDS = env_int("PROLIFIC_WEBHOOK_TOLERANCE_SECONDS", 300)
# How often the scheduler looks for linked studies due a poll (each study polls every poll_seconds).
PROLIFIC_POLL_TICK_SECONDS = env_int("PROLIFIC_POLL_TICK_SECONDS", 10)
