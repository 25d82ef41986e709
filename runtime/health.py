"""``/health/``: whether this web process can serve, for docker-compose and load balancers.

200 while the database answers (the web tier can serve: without Redis the cache falls back to
memory and only job queueing waits), 503 with Retry-After when it does not. The body reports
each component's state; errors are named by their class only, never with their message, which
may hold a host name, a port or a user.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from runtime.cache import FallbackRedisCache

# A probe must answer fast even when the broker is unreachable.
BROKER_TIMEOUT = 1


def database_state() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure is the answer, not an error of the probe
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True}


def cache_state() -> dict[str, Any]:
    cache = caches["default"]
    try:
        if isinstance(cache, FallbackRedisCache):
            if cache.ping():
                return {"ok": True}
            return {"ok": False, "fallback": "memory of each web process", "error": "unreachable"}
        key = "health:probe"
        cache.set(key, 1, 30)
        ok = cache.get(key) == 1
    except Exception as exc:
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": ok}


def broker_state() -> dict[str, Any]:
    # The project's Celery app (config/celery.py), made current when Django imports config.settings.
    from celery import current_app

    try:
        with current_app.connection_for_write() as conn:
            # A broker that accepts but does not answer must not hold the probe past this.
            conn.transport_options = {**(conn.transport_options or {}), "socket_connect_timeout": BROKER_TIMEOUT,
                                      "socket_timeout": BROKER_TIMEOUT}
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT)
    except Exception as exc:
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True}


# Components the apps above add to the probe (jobs adds its worker's heartbeat when Django loads
# it): each check gets the states found so far, database and cache included, and returns its own.
ComponentCheck = Callable[[dict[str, dict[str, Any]]], dict[str, Any]]
component_checks: dict[str, ComponentCheck] = {}


def health_component_register(*, name: str, check: ComponentCheck) -> None:
    component_checks[name] = check


@never_cache
@require_safe
def health(request: HttpRequest) -> JsonResponse:
    started = time.monotonic()
    database = database_state()
    components = {"database": database, "cache": cache_state(), "broker": broker_state()}
    for name, check in component_checks.items():
        components[name] = check(components)
    if not database["ok"]:
        status = "unavailable"
    elif all(c["ok"] for c in components.values()):
        status = "ok"
    else:
        status = "degraded"
    body = {"status": status, "components": components, "seconds": round(time.monotonic() - started, 3)}
    response = JsonResponse(body, status=503 if status == "unavailable" else 200)
    if status == "unavailable":
        response["Retry-After"] = str(settings.UNAVAILABLE_RETRY_AFTER)
    return response
