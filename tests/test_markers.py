"""The integration marker (tests/support/markers.py): implied by the fixtures that start browsers,
servers and workers, and enforced on every test that starts a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.markers import (
    INTEGRATION_FIXTURES,
    INTEGRATION_MARKERS,
    IntegrationRequired,
    is_integration,
)

ROOT = Path(__file__).resolve().parents[1]


class FakeItem:
    def __init__(self, fixtures=(), markers=()) -> None:
        self.fixturenames = list(fixtures)
        self.markers = set(markers)

    def get_closest_marker(self, name):
        return name if name in self.markers else None


def test_a_process_started_by_a_test_not_marked_integration_is_refused():
    with pytest.raises(IntegrationRequired, match="test_markers.py.*not marked integration"):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    with pytest.raises(IntegrationRequired):
        os.system("true")


@pytest.mark.integration
def test_a_test_marked_integration_may_start_processes():
    assert subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout == "42\n"


def test_the_browser_server_and_worker_fixtures_and_markers_imply_the_marker():
    for name in ("browser", "live_server", "worker_processes", "celery_worker_process", "own_queue"):
        assert name in INTEGRATION_FIXTURES
        assert is_integration(FakeItem(fixtures=["db", name]))
    for marker in ("browser", "worker", "api_fuzz", "integration"):
        assert is_integration(FakeItem(fixtures=["db"], markers=[marker]))
    assert not is_integration(FakeItem(fixtures=["db", "client", "settings", "fake_prolific"], markers=["django_db"]))
    assert INTEGRATION_MARKERS == {"browser", "worker", "api_fuzz"}


def test_collected_tests_carry_the_marker_their_fixtures_imply(request):
    # Whatever this session collected (the whole suite under `make test`): no test that uses a
    # browser, server or worker fixture is left in the quick tier.
    unmarked = [item.nodeid for item in request.session.items
                if is_integration(item) and not item.get_closest_marker("integration")]
    assert unmarked == []
    assert request.node.get_closest_marker("integration") is None


def test_the_quick_tier_is_a_make_target_and_the_marker_is_registered():
    makefile = (ROOT / "Makefile").read_text()
    assert '-m "not integration and not slow"' in makefile.split("test-quick:", 1)[1].split("\n\n", 1)[0]
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"integration: ' in pyproject and '"slow: ' in pyproject
    # `make test` runs everything: no marker expression there.
    assert '-m "' not in makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
