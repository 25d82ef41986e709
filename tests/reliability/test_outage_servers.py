"""The outage tests find the servers they start (PostgreSQL's programs wherever this machine
keeps them), and under REQUIRE_WORKER=1 (CI) a missing one fails them instead of skipping."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _pytest.outcomes import Failed, Skipped

from tests.reliability import outage_servers
from tests.reliability.outage_servers import postgres_bin, require_redis_server


@pytest.mark.integration
def test_postgres_programs_are_found_by_pg_config_or_in_a_version_folder(monkeypatch):
    if shutil.which("pg_config") is None and not list(Path("/").glob(outage_servers.PG_BIN_GLOB.lstrip("/"))):
        pytest.skip("PostgreSQL is not installed here")
    found = postgres_bin()
    assert found is not None and (found / "initdb").exists() and (found / "pg_ctl").exists()
    if shutil.which("pg_config"):
        said = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
        if (Path(said) / "initdb").exists():
            assert found == Path(said)
    # Without pg_config on the PATH, the newest version folder that holds initdb.
    folders = [p for p in Path("/").glob(outage_servers.PG_BIN_GLOB.lstrip("/")) if (p / "initdb").exists()]
    monkeypatch.setenv("PATH", "/nonexistent")
    if folders:
        assert postgres_bin() == max(folders, key=lambda p: int(p.parent.name))
    else:
        assert postgres_bin() is None


def test_a_missing_server_fails_under_require_worker_and_skips_otherwise(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("REQUIRE_WORKER", raising=False)
    with pytest.raises(Skipped, match="redis-server is not installed"):
        require_redis_server()
    monkeypatch.setenv("REQUIRE_WORKER", "1")
    with pytest.raises(Failed, match="REQUIRE_WORKER=1"):
        require_redis_server()
    monkeypatch.setattr(outage_servers, "PG_BIN_GLOB", "/nonexistent/*/bin")
    with pytest.raises(Failed, match=r"no PostgreSQL server programs \(initdb\)"):
        outage_servers.PostgresCluster()
