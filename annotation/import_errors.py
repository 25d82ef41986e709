"""What an import refuses: every problem with the place it happened (line or record, field)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RowError:
    line: int | None
    field: str | None
    message: str
    unit: str = "line"

    def __str__(self) -> str:
        where = f"{self.unit} {self.line}" if self.line is not None else "file"
        if self.field:
            return f"{where}, field '{self.field}': {self.message}"
        return f"{where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        found = {self.unit: self.line, "field": self.field, "message": self.message}
        if self.unit not in ("line", "record") and self.line is not None:
            # A place pages cannot name by its key alone ("arguments.csv line 3").
            found["where"] = f"{self.unit} {self.line}"
        return found


class ImportFailed(ValueError):
    """Nothing was imported; ``errors`` says why, row by row."""

    def __init__(self, errors: list[RowError], *, total: int | None = None) -> None:
        self.errors = errors
        self.total = total if total is not None else len(errors)
        shown = "\n".join(str(e) for e in errors)
        more = self.total - len(errors)
        super().__init__(shown + (f"\n… and {more} more errors" if more > 0 else ""))
