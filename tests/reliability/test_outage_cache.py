"""The cache on Redis falls back to the process's memory while Redis is away, without a timeout
per call, and returns to Redis when it answers again."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest
import redis
from django_redis.cache import RedisCache

from runtime.cache import FallbackRedisCache
from tests.reliability.outage_servers import RedisServer, free_port


@pytest.fixture
def redis_server():
    work = Path(tempfile.mkdtemp(prefix="argcrowd-outage-cache-"))
    server = RedisServer(work)
    yield server
    server.stop()
    shutil.rmtree(work, ignore_errors=True)


def make_cache(port: int) -> FallbackRedisCache:
    # A location of its own per test: the breaker is shared by every cache on one location.
    return FallbackRedisCache(f"redis://127.0.0.1:{port}/0", {
        "KEY_PREFIX": "outage-test", "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1}})


def test_without_redis_calls_are_served_from_memory_and_counts_still_count(settings):
    settings.CACHE_FALLBACK_SECONDS = 30
    cache = make_cache(free_port())  # nothing listens there
    cache.set("k", {"a": 1}, 60)
    assert cache.get("k") == {"a": 1} and cache.on_fallback
    assert cache.add("once", 1, 60) is True and cache.add("once", 2, 60) is False
    assert [cache.count("throttle", 60) for _ in range(3)] == [1, 2, 3]
    assert cache.get_or_set("computed", lambda: 7, 60) == 7
    cache.delete("k")
    assert cache.get("k") is None


def test_while_the_breaker_is_open_redis_is_not_tried(settings, monkeypatch):
    settings.CACHE_FALLBACK_SECONDS = 30
    cache = make_cache(free_port())
    cache.get("first")  # finds Redis away and opens the breaker
    tried = []
    monkeypatch.setattr(RedisCache, "get", lambda self, *a, **k: tried.append(a))
    started = time.monotonic()
    for _ in range(200):
        cache.get("x")
    assert tried == [] and time.monotonic() - started < 1


@pytest.mark.integration
def test_when_redis_returns_the_cache_returns_to_it(settings, redis_server):
    settings.CACHE_FALLBACK_SECONDS = 0.5
    cache = make_cache(redis_server.port)
    assert cache.count("c", 60) == 1 and cache.on_fallback  # the server is not started yet
    redis_server.start()
    time.sleep(0.6)
    assert cache.count("c", 60) == 1 and not cache.on_fallback  # counted in Redis now
    assert cache.count("c", 60) == 2
    direct = redis.Redis.from_url(redis_server.url)
    assert int(direct.get(cache.make_key("c"))) == 2 and 0 < direct.ttl(cache.make_key("c")) <= 60
    assert cache.ping()
    redis_server.stop()
    assert not cache.ping() and cache.on_fallback
