"""One call to Prolific's API: the base URL and the token come from settings, never from a page.

``PROLIFIC_API_TOKEN`` is a secret setting (from the environment): it is sent in the
``Authorization`` header and appears in no page, log line, error message or export.
``PROLIFIC_API_URL`` points the client at the real API or, in tests, at a local fake.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings


class MarketplaceError(Exception):
    """The marketplace refused a call or could not be reached; ``status`` is None when no
    answer came back (then the call may or may not have taken effect)."""

    def __init__(self, message: str, *, status: int | None = None, detail: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail

    @property
    def answered(self) -> bool:
        """True when the marketplace answered (so it did not act on a refused call)."""
        return self.status is not None


def prolific_configured() -> bool:
    return bool(getattr(settings, "PROLIFIC_API_TOKEN", ""))


def prolific_call(*, method: str, path: str, body: Any = None, params: dict[str, str] | None = None) -> Any:
    """Send one request and return its decoded JSON body (None for an empty one).

    ``path`` is relative to ``PROLIFIC_API_URL`` (e.g. ``studies/ID/submissions/``).
    """
    token = getattr(settings, "PROLIFIC_API_TOKEN", "")
    if not token:
        raise MarketplaceError("No Prolific API token is configured (PROLIFIC_API_TOKEN).")
    url = settings.PROLIFIC_API_URL.rstrip("/") + "/" + path.lstrip("/")
    if params:
        from urllib.parse import urlencode

        url += "?" + urlencode(params)
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method.upper())
    request.add_header("Authorization", f"Token {token}")
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=settings.PROLIFIC_TIMEOUT_SECONDS) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            detail = json.loads(raw) if raw else None
        except (ValueError, RecursionError):
            detail = raw[:500].decode(errors="replace")
        raise MarketplaceError(f"Prolific answered {error.code} to {method.upper()} {path}",
                               status=error.code, detail=detail) from None
    except (TimeoutError, urllib.error.URLError, ConnectionError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise MarketplaceError(f"Prolific could not be reached for {method.upper()} {path}: {reason}") from None
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's parser
        raise MarketplaceError(f"Prolific answered {method.upper()} {path} with a body that is not JSON",
                               status=200) from None
