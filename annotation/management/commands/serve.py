"""The web server with a background job worker beside it: one command for the embedded default."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand


def worker_command(*, beat: bool = True, concurrency: int = 2) -> list[str]:
    """A Celery worker that runs ``concurrency`` jobs at a time (a small import need not wait
    behind a long analysis), with the scheduler inside it when ``beat`` (expired leases, dead
    jobs)."""
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork",
               "--concurrency", str(concurrency),
               "-Q", settings.CELERY_TASK_DEFAULT_QUEUE, "--loglevel", "INFO", "--without-gossip", "--without-mingle"]
    if beat:
        command += ["--beat", "--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME]
    return command


def _die_with_parent() -> None:
    """In the worker, before it starts: ask Linux to stop it when this command dies, even by
    SIGKILL, so that no orphaned worker keeps taking jobs."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not glibc: the worker then stops only with a polite stop of the server


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt


class Supervisor:
    """Keeps one job worker running: starts it, starts it again when it dies (killed, out of
    memory), and stops it when the server stops."""

    def __init__(self, command: list[str], log_path: Path, *, check_every: float = 2.0) -> None:
        self.command, self.log_path, self.check_every = command, log_path, check_every
        self.process: subprocess.Popen | None = None
        self.restarts = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)

    def start(self) -> subprocess.Popen:
        """Start the worker and its watch; returns the worker's first process."""
        process = self._spawn()
        self._thread.start()
        return process

    def _spawn(self) -> subprocess.Popen:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("a") as log:
            process = subprocess.Popen(self.command, cwd=settings.BASE_DIR, stdout=log, stderr=subprocess.STDOUT,
                                       preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        self.process = process
        return process

    def _watch(self) -> None:
        while not self._stopping.wait(self.check_every):
            if self.process is not None and self.process.poll() is not None and not self._stopping.is_set():
                code = self.process.returncode
                self.restarts += 1
                sys.stderr.write(f"The job worker stopped (exit {code}); starting it again. "
                                 f"Jobs it was running are marked failed and can be restarted.\n")
                self._spawn()

    def stop(self) -> None:
        self._stopping.set()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()


class Command(BaseCommand):
    help = ("Serve the platform on ADDRPORT (default 127.0.0.1:8000) with a job worker beside it, so that "
            "imports and analysis runs progress without any other server; a worker that dies is started "
            "again. Ctrl+C stops both.")

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--noreload", action="store_true", help="do not restart the web server on code changes")
        parser.add_argument("--no-worker", action="store_true", help="serve only; jobs wait for a worker started elsewhere")
        parser.add_argument("--jobs", type=int, default=2, help="jobs the worker runs at a time (default 2)")

    def handle(self, *args, addrport: str, noreload: bool, no_worker: bool, jobs: int, **options):
        # The autoreloader runs this command again in a child process (RUN_MAIN=true); only the
        # first process starts the worker.
        supervisor = None
        if not no_worker and os.environ.get("RUN_MAIN") != "true":
            supervisor = Supervisor(worker_command(concurrency=max(jobs, 1)), Path(settings.VAR_DIR) / "worker.log")
            process = supervisor.start()
            self.stdout.write(f"Job worker started (pid {process.pid}); its log: {supervisor.log_path}")
            # A polite stop (SIGTERM, as from a service manager) stops the worker too.
            signal.signal(signal.SIGTERM, _stop)
        try:
            call_command("runserver", addrport, use_reloader=not noreload)
        finally:
            if supervisor is not None:
                supervisor.stop()
