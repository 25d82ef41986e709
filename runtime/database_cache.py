"""The embedded mode's cache: Django's database cache, in the platform's own database.

The web server and the job worker that ``make run`` starts share it through the database, as
they share everything else; it needs no server and no folder of its own. Its entries hold what
the Redis cache holds (throttle counters, live job progress, the worker's heartbeat, staff
tallies), pickled as Django's cache backends do: whoever can write them can already write the
database.

Django's backend raises a counter by reading it and writing it back, which two processes can
interleave; ``count`` (what the throttles call, see ``annotation.throttles``) does both in one
transaction, which SQLite (``transaction_mode="IMMEDIATE"``) runs one at a time across
processes. On PostgreSQL without Redis two counts of one key at the same instant may still
lose one; a deployment on PostgreSQL uses Redis.
"""

from __future__ import annotations

from django.core.cache.backends.db import DatabaseCache as DjangoDatabaseCache
from django.db import router, transaction


class DatabaseCache(DjangoDatabaseCache):
    def count(self, key: str, timeout: int) -> int:
        """Add one to a counter that lives ``timeout`` seconds from its last count; returns it.

        The expiry moves with each count: a throttle's key names its window, so a counter that
        outlives its window by up to ``timeout`` is never read again, while one that expired
        inside its window would let requests through."""
        with transaction.atomic(using=router.db_for_write(self.cache_model_class)):
            value = self.get(key)
            if value is None:  # the window's first count (or an expired entry)
                self.set(key, 1, timeout)
                return 1
            self.set(key, int(value) + 1, timeout)
            return int(value) + 1
