"""The Redis cache backend, with one Redis client per connection pool instead of one per call.

Django's backend builds a new ``redis.Redis`` for every cache operation, and building one
registers its ~170 response callbacks: on the annotator's hot path that cost more CPU than the
round trip to Redis. A client holds no state of its own beyond its pool and is safe to share
between threads, so one per pool is kept and reused. Everything else is Django's backend.
"""

from __future__ import annotations

from django.core.cache.backends import redis


class _ReusedClients(redis.RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client


class RedisCache(redis.RedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = _ReusedClients
