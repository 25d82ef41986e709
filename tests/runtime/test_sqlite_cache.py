"""The embedded mode's cache (runtime/sqlite_cache.py): Django's cache API over one SQLite file
that the web processes and the job worker share."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from runtime.sqlite_cache import SQLiteCache

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache(tmp_path):
    return SQLiteCache(str(tmp_path / "cache"), {"KEY_PREFIX": "t"})


@pytest.fixture
def clock(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    return now


def test_values_come_back_as_stored_until_they_expire(cache, clock):
    cache.set("live", {"progress": 0.5, "stage": "reading"}, 30)
    cache.set("forever", [1, 2], None)
    assert cache.get("live") == {"progress": 0.5, "stage": "reading"}
    assert cache.get_many(["live", "forever", "absent"]) == {"live": {"progress": 0.5, "stage": "reading"},
                                                            "forever": [1, 2]}
    assert cache.has_key("live") and not cache.has_key("absent")
    clock[0] += 30
    assert cache.get("live", "gone") == "gone" and not cache.has_key("live")
    assert cache.get("forever") == [1, 2]


def test_add_only_where_nothing_live_is_and_incr_keeps_the_expiry(cache, clock):
    assert cache.add("marker", True, 10) is True
    assert cache.add("marker", False, 10) is False
    cache.set("n", 5, 10)
    assert cache.incr("n") == 6 and cache.decr("n", 2) == 4
    clock[0] += 10
    with pytest.raises(ValueError, match="not found"):
        cache.incr("n")
    assert cache.add("marker", "again", 10) is True and cache.get("marker") == "again"


def test_touch_delete_and_clear(cache, clock):
    cache.set("a", 1, 5)
    assert cache.touch("a", 100) is True
    clock[0] += 50
    assert cache.get("a") == 1
    assert cache.touch("absent", 100) is False
    assert cache.delete("a") is True and cache.delete("a") is False
    cache.set_many({"b": 2, "c": 3})
    cache.clear()
    assert cache.get_many(["b", "c"]) == {}


def test_a_timeout_of_zero_stores_nothing_live(cache):
    cache.set("k", 1, 0)
    assert cache.get("k") is None


def test_the_prefix_and_version_keep_keys_apart(tmp_path):
    one = SQLiteCache(str(tmp_path), {"KEY_PREFIX": "one"})
    two = SQLiteCache(str(tmp_path), {"KEY_PREFIX": "two"})
    one.set("k", "one's")
    assert two.get("k") is None and one.get("k", version=2) is None


def test_only_the_owner_may_read_or_write_the_file(cache):
    cache.set("k", 1)
    assert stat.S_IMODE(cache.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.path.parent.stat().st_mode) & 0o077 == 0


def test_threads_of_one_process_lose_no_count(cache):
    def count() -> None:
        for _ in range(200):
            cache.count("shared", 600)

    threads = [threading.Thread(target=count) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert cache.get("shared") == 800


COUNTER = """
import sys
from runtime.sqlite_cache import SQLiteCache
cache = SQLiteCache(sys.argv[1], {"KEY_PREFIX": "t"})
for _ in range(int(sys.argv[2])):
    cache.count("throttle_login_10.0.0.1:1", 600)
"""


@pytest.mark.integration
def test_two_processes_share_throttle_counters_and_lose_no_count(cache):
    """Two web processes counting one client's requests at once: every request is counted once,
    in the one counter both read (Django's database and file caches lose about half here:
    bench/throttle_cache.py)."""
    cache.set("seen-by-the-children", 1)
    children = [subprocess.Popen([sys.executable, "-c", COUNTER, str(cache.path.parent), "500"], cwd=ROOT)
                for _ in range(2)]
    assert [child.wait(timeout=120) for child in children] == [0, 0]
    assert cache.get("throttle_login_10.0.0.1:1") == 1000
    assert cache.count("throttle_login_10.0.0.1:1", 600) == 1001


HAMMER = """
import sys, time
from runtime.sqlite_cache import SQLiteCache
cache = SQLiteCache(sys.argv[1], {})
until = time.monotonic() + float(sys.argv[2])
n = 0
while time.monotonic() < until:
    cache.count(f"throttle_user_{n % 500}:1", 600)
    n += 1
print(n)
"""


@pytest.mark.integration
def test_the_heartbeat_keeps_beating_while_the_web_writes(tmp_path, settings):
    """The job worker's heartbeat goes on while a web process counts throttled requests as fast
    as it can in the same cache and another write holds the database's write lock (an import's
    long transaction): every beat is stored, none waits anywhere near the heartbeat period."""
    from jobs.live import WORKER_KEY, worker_beat

    folder = tmp_path / "cache"
    settings.CACHES = {"default": {"BACKEND": "runtime.sqlite_cache.SQLiteCache", "LOCATION": str(folder),
                                   "OPTIONS": {"BUSY_TIMEOUT": 5}}}
    from django.core.cache import cache

    database = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
    database.execute("CREATE TABLE item (id INTEGER PRIMARY KEY)")
    database.execute("BEGIN IMMEDIATE")
    database.execute("INSERT INTO item DEFAULT VALUES")  # the write lock, held while the worker beats
    web = subprocess.Popen([sys.executable, "-c", HAMMER, str(folder), "3"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    waits, beats = [], []
    try:
        time.sleep(0.3)
        while web.poll() is None:
            started = time.monotonic()
            worker_beat("worker@test")
            waits.append(time.monotonic() - started)
            beats.append(cache.get(WORKER_KEY)["at"])
            time.sleep(0.05)
        web_counts = int(web.communicate(timeout=30)[0])
    finally:
        database.execute("ROLLBACK")
        database.close()
        if web.poll() is None:
            web.kill()
    assert web.returncode == 0 and web_counts > 100, web_counts
    assert len(beats) > 10 and beats == sorted(set(beats))
    assert max(waits) < 1.0, max(waits)
