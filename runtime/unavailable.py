"""What a request meets when a service it needs is away.

Code that finds a service it cannot do without (the database, the job queue) raises
``ServiceUnavailable``; the project answers it with 503 and a ``Retry-After`` header, on a page
that says to retry, or as JSON in the API, never as a 500.
"""

from __future__ import annotations


class ServiceUnavailable(Exception):
    """``what`` is away for now; the caller may retry after ``retry_after`` seconds."""

    def __init__(self, what: str, *, retry_after: int = 30, detail: str = "") -> None:
        super().__init__(detail or f"{what} is unavailable for now; retry in {retry_after} s")
        self.what = what
        self.retry_after = retry_after
        self.detail = detail or str(self)
