"""How often the quality rules err, as measured by ``bench/quality_rules_simulation.py --write``
(written by it; the rules page shows it)."""

from __future__ import annotations

from typing import Any

MEASURED: dict[str, Any] | None = None


def error_rates() -> dict[str, Any] | None:
    return MEASURED
