"""Counts in words for the messages staff read: "1 assignment", "2 assignments"."""

from __future__ import annotations

from django.utils.translation import ngettext


def count_of(n: int, singular: str, plural: str) -> str:
    """``n`` with its noun in the number that fits (through Django's ``ngettext``)."""
    return f"{n} {ngettext(singular, plural, n)}"
