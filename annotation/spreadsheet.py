"""Cells of CSV/TSV exports that a spreadsheet must not run as formulas.

A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by
Excel, LibreOffice and Google Sheets as a formula (``=HYPERLINK(...)``, ``=cmd|...``), so an
annotator's reason or worker id could run on the researcher's machine. Following OWASP's advice
on CSV injection, such a cell gets a leading single quote, which spreadsheets show as text.
Numbers stay numbers: numeric values are written as they are, and so is text that is just a
number (``-0.5``), which no spreadsheet evaluates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """The value to write in a CSV/TSV cell: text that a spreadsheet would take for a formula
    gets a leading ``'``; everything else is returned unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def safe_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {key: safe_cell(value) for key, value in row.items()}
