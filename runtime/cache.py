"""The shared cache on Redis, with a fallback for when Redis is away.

Throttles, live job progress and staff tallies keep their state in the cache. Without a fallback,
a Redis outage turned every throttled request (the API's ``next`` and submit, logins, tokens) into
a 500. Here, a call that cannot reach Redis is served by a local-memory cache of the process, and
for ``CACHE_FALLBACK_SECONDS`` after such a failure every call goes there straight away (a circuit
breaker), so a dead or unreachable Redis costs one timeout per process and pause, not one per
request. Then the next call tries Redis again; when it answers, everything is back on Redis.

While on the fallback, counts are per process: a throttle or a rate still limits, at most by the
number of web processes times its rate. django-redis's own ``IGNORE_EXCEPTIONS`` would instead
answer "nothing cached" and let every count start from nothing, so limits would not hold.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django_redis.cache import RedisCache
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError as RedisReadOnlyError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# What "Redis is away" looks like (refused, reset, timed out, still loading its data after a
# restart, or a replica left read-only by a failover); any other error (a bad command, a full memory) is a bug or a real problem, and raises.
UNREACHABLE = (ConnectionInterrupted, RedisConnectionError, RedisTimeoutError, RedisReadOnlyError)

# Add one to a counter that lives ARGV[1] seconds from its first count, in one round trip and
# atomically: incr then expire, as two calls, could leave a counter without an expiry.
_INCR_WITH_EXPIRY = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


class _Breaker:
    """Whether Redis counts as away in this process, and since when. One per Redis location,
    shared by the threads of the process (Django makes a cache object per thread)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open_until = 0.0
        self.down_since: float | None = None

    def is_open(self) -> bool:
        return time.monotonic() < self.open_until

    def trip(self, seconds: float, location: str, exc: BaseException) -> None:
        with self.lock:
            first = self.down_since is None
            if first:
                self.down_since = time.time()
            self.open_until = time.monotonic() + seconds
        if first:
            # Once per outage: the cause, without the URL (it may hold a password).
            logger.error("the cache (Redis) is unreachable, using this process's memory instead: %s: %s",
                         type(exc).__name__, exc)

    def close(self) -> None:
        if self.down_since is None:
            return
        with self.lock:
            was_down, self.down_since = self.down_since, None
        if was_down is not None:
            logger.warning("the cache (Redis) is reachable again after %.0f s", time.time() - was_down)


_breakers: dict[str, _Breaker] = {}
_breakers_lock = threading.Lock()


def _breaker_for(location: str) -> _Breaker:
    with _breakers_lock:
        return _breakers.setdefault(location, _Breaker())


class FallbackRedisCache(RedisCache):
    """django-redis's cache; each call that finds Redis away is served by the process's memory."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._location = server
        self._breaker = _breaker_for(server)
        # LocMemCache keeps its data per name for the whole process, so every thread's cache
        # object shares the same fallback.
        self._local = LocMemCache(f"redis-fallback:{server}", {
            "KEY_PREFIX": params.get("KEY_PREFIX", ""), "VERSION": params.get("VERSION", 1),
            "TIMEOUT": params.get("TIMEOUT", 300), "OPTIONS": {"MAX_ENTRIES": 10_000},
        })
        self._script: Any = None

    # --- the state, for the health endpoint -----------------------------------------------

    @property
    def on_fallback(self) -> bool:
        """Whether Redis was found away within the last ``CACHE_FALLBACK_SECONDS``."""
        return self._breaker.is_open()

    def ping(self) -> bool:
        """Ask Redis itself (bypassing the breaker); closes or trips the breaker by the answer."""
        try:
            self.client.get_client(write=True).ping()
        except UNREACHABLE as exc:
            self._breaker.trip(_fallback_seconds(), self._location, exc)
            return False
        self._breaker.close()
        return True

    # --- the calls ---------------------------------------------------------------------------

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if not self._breaker.is_open():
            try:
                result = getattr(super(), name)(*args, **kwargs)
            except UNREACHABLE as exc:
                self._breaker.trip(_fallback_seconds(), self._location, exc)
            else:
                self._breaker.close()
                return result
        return getattr(self._local, name)(*args, **kwargs)

    def count(self, key: str, timeout: int) -> int:
        """Add one to the counter ``key`` that lives ``timeout`` seconds from its first count;
        returns the new count (the throttles' one round trip)."""
        if not self._breaker.is_open():
            try:
                if self._script is None:
                    self._script = self.client.get_client(write=True).register_script(_INCR_WITH_EXPIRY)
                result = int(self._script(keys=[self.make_and_validate_key(key)], args=[timeout]))
            except UNREACHABLE as exc:
                self._breaker.trip(_fallback_seconds(), self._location, exc)
            else:
                self._breaker.close()
                return result
        return local_count(self._local, key, timeout)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("get", *args, **kwargs)

    def set(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("set", *args, **kwargs)

    def add(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("add", *args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("delete", *args, **kwargs)

    def touch(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("touch", *args, **kwargs)

    def incr(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("incr", *args, **kwargs)

    def decr(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("decr", *args, **kwargs)

    def has_key(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("has_key", *args, **kwargs)

    def get_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("get_many", *args, **kwargs)

    def set_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("set_many", *args, **kwargs)

    def delete_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("delete_many", *args, **kwargs)

    def clear(self) -> Any:
        self._local.clear()
        return self._call("clear")


def local_count(cache: Any, key: str, timeout: int) -> int:
    """The counter of ``FallbackRedisCache.count`` in a cache without Redis's script."""
    try:
        return int(cache.incr(key))
    except ValueError:  # the window's first request
        return 1 if cache.add(key, 1, timeout) else int(cache.incr(key))


def _fallback_seconds() -> float:
    return float(getattr(settings, "CACHE_FALLBACK_SECONDS", 5))
