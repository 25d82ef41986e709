"""Private servers for the outage tests: a redis-server and a PostgreSQL cluster on free ports,
and the platform under gunicorn against them. The machine's shared services are never touched."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from tests.support.runtime import ROOT, _worker_unavailable

# Where Debian puts each PostgreSQL version's server programs (initdb, pg_ctl), newest first.
PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's server programs: what ``pg_config --bindir`` says, else the
    newest Debian version folder that holds ``initdb``; None when neither has it."""
    found: list[Path] = []
    if (pg_config := shutil.which("pg_config")) is not None:
        done = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10)
        if done.returncode == 0 and done.stdout.strip():
            found.append(Path(done.stdout.strip()))
    versions = sorted(Path("/").glob(PG_BIN_GLOB.lstrip("/")),
                      key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)
    found += versions
    return next((folder for folder in found if (folder / "initdb").exists()), None)


def require_redis_server() -> str:
    """The redis-server program; without it, the test skips, or fails under REQUIRE_WORKER=1
    (CI), so that an outage test cannot pass there by skipping."""
    path = shutil.which("redis-server")
    if path is None:
        _worker_unavailable("redis-server is not installed: the outage tests start one of their own")
    return str(path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, *, timeout: float, what: str, step: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(step)
    raise AssertionError(f"{what} within {timeout} s")


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class RedisServer:
    """A redis-server of the test's own, which the test may stop and start again on its port."""

    def __init__(self, work: Path) -> None:
        require_redis_server()
        self.port, self.work = free_port(), work
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = (self.work / "redis.log").open("a")
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", str(self.work)],
                                     stdout=log, stderr=subprocess.STDOUT)
        wait_until(lambda: port_open(self.port), timeout=10, what="redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()  # an outage, not a shutdown: nothing is saved or said to clients
            self.proc.wait(timeout=10)
        wait_until(lambda: not port_open(self.port), timeout=5, what="redis-server did not stop")


class PostgresCluster:
    """A PostgreSQL cluster of the test's own, run as the ``postgres`` user when the test runs as
    root (PostgreSQL refuses to run as root)."""

    def __init__(self) -> None:
        found = postgres_bin()
        if found is None:
            _worker_unavailable(f"no PostgreSQL server programs (initdb) in `pg_config --bindir` or {PG_BIN_GLOB}")
        self.bin = found
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                _worker_unavailable("running as root and runuser is missing: cannot start a PostgreSQL cluster")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        self.work = Path(tempfile.mkdtemp(prefix="argcrowd-outage-pg-"))
        self.data = self.work / "data"
        if self.as_user:
            shutil.chown(self.work, user="postgres")
        self._run(self.bin / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")

    def _run(self, *command) -> None:
        done = subprocess.run([*self.as_user, *map(str, command)], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stderr[-2000:]}")

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.work} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(self.bin / "pg_ctl", "-D", self.data, "-l", self.work / "log", "-w", "-t", "30", "-o", options, "start")

    def stop(self) -> None:
        # "fast": open connections are cut, as an outage would.
        self._run(self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "30", "stop")

    def remove(self) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(RuntimeError):  # already stopped
                self.stop()
        shutil.rmtree(self.work, ignore_errors=True)


class LiveServer:
    """The platform under gunicorn, with the given environment."""

    def __init__(self, env: dict[str, str], work: Path, *, workers: int = 1) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = work / "gunicorn.log"
        clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH", "REDIS_URL")}
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
                 "--workers", str(workers), "--timeout", "30", "--graceful-timeout", "2"],
                cwd=ROOT, env={**clean, "ARGCROWD_TEST_RUN": "1", **env}, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: self.proc.poll() is not None or self._answers(), timeout=40,
                       what="gunicorn did not answer")
        except AssertionError:
            self.stop()
            raise
        if self.proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited: {self.log.read_text()[-3000:]}")

    def _answers(self) -> bool:
        try:
            requests.get(self.base + "/health/", timeout=5)
        except requests.RequestException:
            return False
        return True

    def session(self, token: str | None = None) -> requests.Session:
        s = requests.Session()
        if token:
            s.headers["Authorization"] = f"Token {token}"
        return s

    def url(self, path: str) -> str:
        return self.base + path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def log_tail(self) -> str:
        return self.log.read_text()[-4000:]


def compose_web_healthcheck(live: LiveServer) -> int:
    """Run docker-compose.yml's health check of the web service against ``live``; its exit code."""
    import yaml

    test = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python", "-c"] and "/health/" in test[3]
    code = test[3].replace("http://127.0.0.1:8000/", live.base + "/")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost"})
    return done.returncode
