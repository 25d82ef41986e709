"""Authenticity signals sent with an answer: characters pasted into its text fields, how long the
page was hidden, how often the window lost focus, whether the browser said it is driven by
automation (``navigator.webdriver``), and the browser's device id (a random id the annotation
page keeps in the browser's local storage, so that staff see which accounts answer from one
browser: ``quality.selectors.shared_devices``).

They are evidence for staff, shown on the worker page; they never refuse or block anything on
their own (a quality rule may act on them). A client sends them as form fields (``client_pasted``,
``client_hidden_ms``, ``client_blurs``, ``client_webdriver``, ``client_device``, from
``static/js/annotate/signals.js``) or, through the API, as an object ``signals`` with the keys
``pasted``, ``hidden_ms``, ``blurs``, ``webdriver`` and ``device``. Whatever a client sends, what
is kept is a whole number clamped to its range, a boolean, or a device id of 8 to 64 letters,
digits and hyphens; a field that is absent or unreadable is left out. Pure: no Django here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

# Upper bounds: beyond them a figure says nothing more (a day hidden; more pasted characters
# than any reason holds) and a hostile client cannot store huge numbers.
LIMITS = {"pasted": 1_000_000, "hidden_ms": 86_400_000, "blurs": 100_000}
# The API's key → the form field the annotation page sends.
FORM_FIELDS = {"pasted": "client_pasted", "hidden_ms": "client_hidden_ms", "blurs": "client_blurs",
               "webdriver": "client_webdriver", "device": "client_device"}
# A device id as the page makes it (a UUID); anything else is left out rather than stored.
DEVICE_ID = re.compile(r"[A-Za-z0-9-]{8,64}")
TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}


def _count(value: Any, limit: int) -> int | None:
    """A non-negative whole number no larger than ``limit``, or None when ``value`` is no number."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        value = value.strip()[:40]
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(number):
        return None
    return int(min(max(number, 0), limit))


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return bool(value) if value in (0, 1) else None
    if isinstance(value, str):
        text = value.strip().lower()[:10]
        return True if text in TRUE else False if text in FALSE else None
    return None


def signals_clean(raw: Mapping[str, Any] | None) -> dict[str, int | bool | str]:
    """The signals of ``raw`` (keys ``pasted``, ``hidden_ms``, ``blurs``, ``webdriver``,
    ``device``), checked: counts clamped to 0…their limit, the flag a boolean, the device id as
    sent when it has the form of one; anything else left out."""
    if not isinstance(raw, Mapping):
        return {}
    clean: dict[str, int | bool | str] = {}
    for key, limit in LIMITS.items():
        number = _count(raw.get(key), limit)
        if number is not None:
            clean[key] = number
    flag = _flag(raw.get("webdriver"))
    if flag is not None:
        clean["webdriver"] = flag
    device = raw.get("device")
    if isinstance(device, str) and DEVICE_ID.fullmatch(device):
        clean["device"] = device
    return clean


def signals_from_form(fields: Mapping[str, Any]) -> dict[str, int | bool | str]:
    """The signals among the annotation page's form fields (``client_pasted`` …)."""
    return signals_clean({key: fields.get(name) for key, name in FORM_FIELDS.items() if name in fields})
