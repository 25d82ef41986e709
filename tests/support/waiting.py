"""Waiting for what a real worker does to a database row."""

import time


def wait_for(obj, condition, *, timeout: float = 60.0, step: float = 0.1, describe=None):
    """Refresh ``obj`` until ``condition(obj)`` holds; fail naming what it was after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        obj.refresh_from_db()
        if condition(obj):
            return obj
        time.sleep(step)
    state = describe(obj) if describe else getattr(obj, "status", obj)
    raise AssertionError(f"{obj} is still {state} after {timeout} s")
