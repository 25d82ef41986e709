"""Cells of CSV/TSV exports that a spreadsheet must not run as formulas.

A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by
Excel, LibreOffice and Google Sheets as a formula (``=HYPERLINK(...)``, ``=cmd|...``), so an
annotator's reason or worker id could run on the researcher's machine. Following OWASP's advice
on CSV injection, such a cell gets a leading single quote, which spreadsheets show as text.
Numbers stay numbers: numeric values are written as they are, and so is text that is just a
number (``-0.5``), which no spreadsheet evaluates.

Every CSV and TSV the platform writes goes through here: ``safe_cell``/``safe_row`` for the
``csv`` module (which quotes a cell holding a delimiter or line break), ``tsv_line`` for the
unquoted TSV of published corpora, where a tab or line break inside a value would start a new
cell (``"x\t=cmd"``) and is written as a space.
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


def tsv_cell(value: Any) -> str:
    """A cell of an unquoted TSV line: neutralised like ``safe_cell``, with the tabs and line
    breaks inside it written as spaces, so that no part of it becomes a cell of its own."""
    return str(safe_cell(value)).replace("\t", " ").replace("\r", " ").replace("\n", " ")


def tsv_line(*cells: Any) -> str:
    """One unquoted TSV line of ``cells``."""
    return "\t".join(tsv_cell(c) for c in cells) + "\n"
