"""The embedded mode's cache: one SQLite file apart from the database, shared by the web server
and the job worker.

Throttle counts, live job progress, the cancel flags, the worker's heartbeat and staff tallies
pass between the web process and the worker through the cache, so it must be shared between
processes (Django's local-memory cache is not). It lives in a file of its own, not in the
database: an import that holds the database's write lock must not stall throttled requests or
the heartbeat. Django's database cache would need a database alias of its own, asks
``COUNT(*)`` of the whole table on every write and drops live entries past ``MAX_ENTRIES``; its
``incr`` is a read then a write, which two processes can interleave and lose a count. Django's file
cache lists every file of its folder on every write. Here:

- a count (``count``: the throttles' add-or-increment), ``incr`` and ``add`` are one ``BEGIN
  IMMEDIATE`` transaction each, so processes counting at once lose no count;
- every write drops at most ``PURGE_ROWS`` expired entries, found through an index on the
  expiry, so a write costs the same however many counters the platform has written;
- WAL, and a busy timeout (``OPTIONS["BUSY_TIMEOUT"]``, seconds) for a write that meets another
  process's.

Values are pickled, as by every cache backend of Django and django-redis: whoever can write the
file can make the platform run code, so the file is created readable and writable by its owner
only, in a folder only the platform writes (``var/cache``), as the database and the code are.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache

# Expired entries one write removes at most: more than one, so that they leave faster than
# counters of past windows arrive; few, so that no write pays for a long pause.
PURGE_ROWS = 10
FILE_NAME = "cache.sqlite3"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS cache_entry (key TEXT PRIMARY KEY, value BLOB NOT NULL, expires REAL)",
    "CREATE INDEX IF NOT EXISTS cache_entry_expires ON cache_entry (expires) WHERE expires IS NOT NULL",
)


class SQLiteCache(BaseCache):
    """Django's cache API over one SQLite file (``LOCATION``: a folder; the file is
    ``cache.sqlite3`` in it). Entries whose expiry has passed read as absent."""

    def __init__(self, location: str, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.path = Path(location) / FILE_NAME
        self.busy_timeout = float(params.get("OPTIONS", {}).get("BUSY_TIMEOUT", 5))
        self._local = threading.local()

    # --- the connection ------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (a new one after a fork: a connection is never shared
        between processes)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            return conn
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not self.path.exists():
            self.path.touch(mode=0o600)
        # Autocommit (isolation_level=None): each transaction below is begun by hand.
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        for statement in _SCHEMA:
            conn.execute(statement)
        self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the write lock from its start (a read then a write
        inside it cannot interleave with another process's)."""
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @staticmethod
    def _purge(conn: sqlite3.Connection, now: float) -> None:
        conn.execute("DELETE FROM cache_entry WHERE key IN (SELECT key FROM cache_entry "
                     "WHERE expires IS NOT NULL AND expires <= ? LIMIT ?)", (now, PURGE_ROWS))

    @staticmethod
    def _live(conn: sqlite3.Connection, key: str, now: float) -> tuple[bytes, float | None] | None:
        row = conn.execute("SELECT value, expires FROM cache_entry WHERE key = ? AND (expires IS NULL OR expires > ?)",
                           (key, now)).fetchone()
        return None if row is None else (row[0], row[1])

    def _store(self, conn: sqlite3.Connection, key: str, value: Any, expires: float | None) -> None:
        conn.execute("INSERT OR REPLACE INTO cache_entry (key, value, expires) VALUES (?, ?, ?)",
                     (key, pickle.dumps(value, pickle.HIGHEST_PROTOCOL), expires))

    def close(self, **kwargs: Any) -> None:
        # Django calls this at the end of every request: the connection is kept for the next.
        return None

    # --- Django's cache API --------------------------------------------------------------------

    def get(self, key: str, default: Any = None, version: int | None = None) -> Any:
        found = self._live(self._connection(), self.make_and_validate_key(key, version=version), time.time())
        return default if found is None else pickle.loads(found[0])

    def get_many(self, keys: Any, version: int | None = None) -> dict[str, Any]:
        made = {self.make_and_validate_key(key, version=version): key for key in keys}
        if not made:
            return {}
        marks = ",".join("?" * len(made))
        rows = self._connection().execute(
            f"SELECT key, value FROM cache_entry WHERE key IN ({marks}) AND (expires IS NULL OR expires > ?)",
            (*made, time.time())).fetchall()
        return {made[key]: pickle.loads(value) for key, value in rows}

    def has_key(self, key: str, version: int | None = None) -> bool:
        return self._live(self._connection(), self.make_and_validate_key(key, version=version), time.time()) is not None

    def set(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        made = self.make_and_validate_key(key, version=version)
        with self._writing() as conn:
            self._store(conn, made, value, self.get_backend_timeout(timeout))
            self._purge(conn, time.time())

    def add(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        made = self.make_and_validate_key(key, version=version)
        with self._writing() as conn:
            now = time.time()
            if self._live(conn, made, now) is not None:
                return False
            self._store(conn, made, value, self.get_backend_timeout(timeout))
            self._purge(conn, now)
        return True

    def touch(self, key: str, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        made = self.make_and_validate_key(key, version=version)
        with self._writing() as conn:
            changed = conn.execute(
                "UPDATE cache_entry SET expires = ? WHERE key = ? AND (expires IS NULL OR expires > ?)",
                (self.get_backend_timeout(timeout), made, time.time())).rowcount
        return changed > 0

    def delete(self, key: str, version: int | None = None) -> bool:
        made = self.make_and_validate_key(key, version=version)
        with self._writing() as conn:
            return conn.execute("DELETE FROM cache_entry WHERE key = ?", (made,)).rowcount > 0

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> Any:
        made = self.make_and_validate_key(key, version=version)
        with self._writing() as conn:
            found = self._live(conn, made, time.time())
            if found is None:
                raise ValueError(f"Key '{key}' not found")
            value = pickle.loads(found[0]) + delta
            self._store(conn, made, value, found[1])
        return value

    def count(self, key: str, timeout: int) -> int:
        """Add one to the counter ``key`` that lives ``timeout`` seconds from its first count;
        returns the new count (the throttles' one transaction, as ``FallbackRedisCache.count``)."""
        made = self.make_and_validate_key(key)
        with self._writing() as conn:
            now = time.time()
            found = self._live(conn, made, now)
            expires: float | None
            if found is None:
                value, expires = 1, now + timeout
            else:
                value, expires = int(pickle.loads(found[0])) + 1, found[1]
            self._store(conn, made, value, expires)
            self._purge(conn, now)
        return value

    def clear(self) -> None:
        with self._writing() as conn:
            conn.execute("DELETE FROM cache_entry")
