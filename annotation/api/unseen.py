"""The one answer the API gives for anything the caller may not see.

A missing assignment, another worker's, one without an answer, a project that does not exist
and a private one the caller is no member of all get the same 404 with the same body: a
different status or message for any of them would tell a caller which ids and slugs exist
(an existence oracle). Staff who may view a thing are told more, since they can see it anyway.
"""

from __future__ import annotations

from rest_framework.exceptions import NotFound

from runtime.not_found import NOT_FOUND


def unseen() -> NotFound:
    """The exception to raise: ``404 {"detail": "Not found."}``."""
    return NotFound(NOT_FOUND)
