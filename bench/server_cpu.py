"""The CPU time a server's processes spend during a benchmark window, read from Linux's /proc.

A server here is a tree of processes: the web server's master and its workers, and the database
server's postmaster with its backends and background processes. Processes that start and end
inside the window (a database connection opened per request, a worker recycled) are counted too:
their parent collects their CPU time when it reaps them (``cutime``/``cstime`` in
``/proc/PID/stat``). A process that was alive at the start and has gone by the end is counted
through its parent as well, minus what it had spent before the window.

Linux counts CPU time in clock ticks (usually 10 ms): over a run of many seconds the error is a
few ticks per process.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Stat:
    pid: int
    ppid: int
    # Identifies the process across samples: a pid can be reused, its start time cannot.
    started: int
    own: float  # seconds of CPU, user + system, of the process itself
    reaped: float  # seconds of CPU of its children that ended and were reaped
    command: str


def _stat(pid: int) -> Stat | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
        command = (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: split after it.
    rest = text[text.rindex(")") + 2:].split()
    # Fields from the 3rd on: state ppid … utime(14) stime(15) cutime(16) cstime(17) … starttime(22).
    ppid = int(rest[1])
    utime, stime, cutime, cstime = (int(v) for v in rest[11:15])
    return Stat(pid=pid, ppid=ppid, started=int(rest[19]), own=(utime + stime) / TICK,
                reaped=(cutime + cstime) / TICK, command=command)


def _all() -> dict[int, Stat]:
    found = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                found[stat.pid] = stat
    return found


def tree(roots: Iterable[int], stats: dict[int, Stat] | None = None) -> dict[tuple[int, int], Stat]:
    """The root processes and all their descendants, keyed by (pid, start time)."""
    stats = stats if stats is not None else _all()
    children: dict[int, list[int]] = {}
    for s in stats.values():
        children.setdefault(s.ppid, []).append(s.pid)
    found: dict[tuple[int, int], Stat] = {}
    todo = [pid for pid in roots if pid in stats]
    while todo:
        pid = todo.pop()
        s = stats[pid]
        found[(s.pid, s.started)] = s
        todo.extend(children.get(pid, ()))
    return found


def listening_pids(port: int) -> list[int]:
    """The processes holding a listening TCP socket on ``port`` (any address), outermost first:
    for a pre-forking server, its master before the workers that inherited the socket."""
    inodes = set()
    for name in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(f"socket:[{inode}]")
    pids = set()
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    pids.add(int(entry.name))
                    break
        except OSError:
            continue
    stats = {pid: _stat(pid) for pid in pids}
    # Roots: holders whose parent does not hold the socket too.
    return sorted(pid for pid, s in stats.items() if s is not None and s.ppid not in pids)


class Window:
    """CPU seconds spent by the process trees under ``roots`` between ``start()`` and ``stop()``."""

    def __init__(self, roots: Iterable[int]) -> None:
        self.roots = list(roots)
        self.before: dict[tuple[int, int], Stat] = {}
        self.after: dict[tuple[int, int], Stat] = {}

    def start(self) -> None:
        self.before = tree(self.roots)
        self.started_at = time.monotonic()

    def stop(self) -> None:
        self.after = tree(self.roots)
        self.seconds = time.monotonic() - self.started_at

    def cpu(self, *, match: str | None = None) -> float:
        """CPU seconds of the window. With ``match``, only the processes alive at the end whose
        command line contains it (no reaped children): e.g. one database's backends."""
        total = 0.0
        for key, s in self.after.items():
            if match is not None and match not in s.command:
                continue
            old = self.before.get(key)
            total += s.own - (old.own if old else 0.0)
            if match is None:
                total += s.reaped - (old.reaped if old else 0.0)
        if match is None:
            # Gone during the window: reaped into a parent's count, which holds their whole life.
            total -= sum(s.own + s.reaped for key, s in self.before.items() if key not in self.after)
        return total


def calibration(iterations: int = 10_000_000) -> float:
    """Seconds this machine takes for a fixed pure-Python loop: a figure of its speed, printed
    beside every result so that runs on machines of different speed can be told apart."""
    start = time.perf_counter()
    n = 0
    for i in range(iterations):
        n += i
    return time.perf_counter() - start
