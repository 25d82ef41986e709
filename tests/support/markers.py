"""The ``integration`` marker: tests that start a browser, a server, a subprocess or a worker.

``make test-quick`` runs ``-m "not integration and not slow"``; ``make test`` and CI run
everything. (``slow`` is set by hand on the few long tests that a new task type or an ordinary
change does not touch; docs/development.md lists them.) A test is marked ``integration`` in one of
three ways:

- it uses a fixture of ``INTEGRATION_FIXTURES`` (directly or through another fixture): the
  fixture implies the marker, so nobody has to remember it;
- it carries one of ``INTEGRATION_MARKERS`` (``browser``, ``worker``, ``api_fuzz``), which all
  imply processes or servers;
- it is marked ``integration`` by hand, as the tests that call ``subprocess`` themselves are.

And it is checked: while a test that is not marked runs (setup, call and teardown), starting a
process raises ``IntegrationRequired`` (a Python audit hook on ``subprocess.Popen``, ``os.system``,
``os.posix_spawn`` and ``os.fork``), so a forgotten marker fails the test in every run instead of
slowing the quick tier down silently. A process started while a module is being imported (a
library probing the system once) is not the test's doing and is let through.
"""

from __future__ import annotations

import inspect
import sys

import pytest

# Fixtures that start a browser (Playwright's Chromium), a server (pytest-django's live server,
# gunicorn) or real Celery workers. A fixture that needs one of these is covered through
# ``item.fixturenames``, which lists every fixture a test uses, however deep.
INTEGRATION_FIXTURES = frozenset({
    "browser",
    "chromium_path",
    "live_server",
    "worker_processes",
    "celery_worker_process",
    "own_queue",
})
INTEGRATION_MARKERS = frozenset({"browser", "worker", "api_fuzz"})
PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.spawn", "os.fork"})


class IntegrationRequired(RuntimeError):
    """A test that is not marked ``integration`` started a process."""


def is_integration(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    return bool(
        INTEGRATION_FIXTURES & names
        or any(item.get_closest_marker(name) for name in INTEGRATION_MARKERS | {"integration"})
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if is_integration(item) and not item.get_closest_marker("integration"):
            item.add_marker(pytest.mark.integration)


# The test now running when it may not start processes; None between tests and in integration tests.
_guarded: list[str | None] = [None]


def _importing() -> bool:
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False


def _audit(event: str, args: tuple) -> None:
    test = _guarded[0]
    if event not in PROCESS_EVENTS or test is None or _importing():
        return
    raise IntegrationRequired(
        f"{test} starts a process ({event}) but is not marked integration: mark it "
        "@pytest.mark.integration, or add the fixture that starts it to INTEGRATION_FIXTURES "
        "in tests/support/markers.py"
    )


def pytest_configure(config: pytest.Config) -> None:
    # An audit hook cannot be removed; it does nothing unless a guarded test is running.
    sys.addaudithook(_audit)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _guarded[0] = None if item.get_closest_marker("integration") else item.nodeid
    try:
        return (yield)
    finally:
        _guarded[0] = None
