"""Request limits: throttles on the API, logins, join codes and marketplace links, and what a
locked-out login (django-axes) gets back.

Every count lives in the default cache, which settings point at Redis or (the embedded default)
at SQLite files that expire their entries, so the limits hold across web processes. While Redis
is away, each process counts in its own memory (``runtime.cache``): the limits still hold, per
process. Rates are read from ``REST_FRAMEWORK`` when a throttle is
made (not when this module is imported), so they follow the settings.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from functools import lru_cache, wraps

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import get_urlconf, reverse
from rest_framework import throttling
from rest_framework.settings import api_settings

LOCKOUT_TEMPLATE = "registration/lockout.html"


class _RatesFromSettings(throttling.SimpleRateThrottle):
    """Rates from the settings, counted in fixed windows: one counter per client and window,
    raised by one atomic increment (a single cache round trip per request, whatever the rate).
    DRF's own throttles keep and rewrite the list of every request's time in the window, which
    costs more the higher the rate. A client may send up to twice the rate across the edge of
    two windows; that is the price of the counter."""

    # Set by SimpleRateThrottle.__init__ from the rate (the stubs leave them out): None only
    # when the rate is, and allow_request reads them only when it is not.
    num_requests: int
    duration: int

    def __init__(self) -> None:
        # The backend itself rather than Django's proxy for it, so that _count knows Redis; a
        # throttle lives for one request, in the thread that serves it.
        self.cache = caches["default"]
        super().__init__()

    def get_rate(self) -> str | None:
        if self.scope is None:
            return None
        # The stubs type the rates as numbers; DRF's rates are strings such as "60/min".
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)  # type: ignore[return-value]

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        self.window_ends = (window + 1) * self.duration
        return _count(self.cache, f"{self.key}:{window}", self.duration + 1) <= self.num_requests

    def wait(self) -> float | None:
        return max(self.window_ends - self.timer(), 0.0)


def _count(cache, key: str, timeout: int) -> int:
    """Add one to a counter that lives ``timeout`` seconds from its first count; returns it."""
    count = getattr(cache, "count", None)
    if count is not None:
        # The Redis cache (runtime.cache): one atomic round trip, or this process's memory while
        # Redis is away.
        return count(key, timeout)
    try:
        return cache.incr(key)
    except ValueError:  # the window's first request
        return 1 if cache.add(key, 1, timeout) else cache.incr(key)


class AnonThrottle(_RatesFromSettings, throttling.AnonRateThrottle):
    """Requests without a login, per client address."""


class UserThrottle(_RatesFromSettings, throttling.UserRateThrottle):
    """Requests of a logged-in user (by address when anonymous)."""


class AddressThrottle(_RatesFromSettings, throttling.SimpleRateThrottle):
    """Requests per client address, logged in or not."""

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class TokenThrottle(AddressThrottle):
    scope = "token"


class JoinThrottle(UserThrottle):
    scope = "join"


class JoinAddressThrottle(AddressThrottle):
    scope = "join_address"


class StartThrottle(AddressThrottle):
    scope = "start"


class LoginThrottle(AddressThrottle):
    scope = "login"


# Signed webhook deliveries per sending address, when REST_FRAMEWORK's rates do not name the scope.
SIGNED_DELIVERY_RATE = "600/min"


class SignedDeliveryThrottle(AddressThrottle):
    """Webhook deliveries whose signature matched, counted apart from every other anonymous
    request: forged deliveries (counted by AnonThrottle) cannot use up the sender's limit."""

    scope = "signed_delivery"

    def get_rate(self) -> str | None:
        return super().get_rate() or SIGNED_DELIVERY_RATE


def client_address(request: HttpRequest) -> str:
    """The client's address as the throttles see it (REMOTE_ADDR, or the entry of
    X-Forwarded-For that the trusted proxies added), so lockouts and throttles agree."""
    # The stubs ask for DRF's Request; get_ident reads only request.META, which this one has.
    return throttling.BaseThrottle().get_ident(request) or ""  # type: ignore[arg-type]


def too_many_requests(request: HttpRequest, wait: float | None) -> HttpResponse:
    seconds = max(1, math.ceil(wait or 60))
    response = render(request, "annotation/message.html", {
        "title": "Too many attempts",
        "text": f"You tried this too often in a short time. Please wait {seconds} seconds, then try again.",
    }, status=429)
    response["Retry-After"] = str(seconds)
    return response


def throttle(*classes: type[_RatesFromSettings]) -> Callable:
    """Apply DRF throttles to a plain Django view: past the rate it answers 429 with a page."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            throttles = [cls() for cls in classes]
            waits = [t.wait() for t in throttles if not t.allow_request(request, None)]
            if waits:
                return too_many_requests(request, max((w for w in waits if w is not None), default=None))
            return view(request, *args, **kwargs)

        return wrapped

    return decorate


class LoginThrottleMiddleware:
    """Login attempts (the login page and the admin's) per client address. The lockout counts
    failures per user name; this bounds how many names one address can try, without locking
    everyone behind a shared address out for the cool-off time."""

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        self.guarded = throttle(LoginThrottle)(get_response)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path_info in _login_paths(get_urlconf() or settings.ROOT_URLCONF):
            return self.guarded(request)
        return self.get_response(request)


@lru_cache(maxsize=8)
def _login_paths(urlconf: str | None) -> tuple[str, str]:
    # Reversed once per URL configuration, not on every POST (the annotator's submits are POSTs).
    return reverse("login", urlconf=urlconf), reverse("admin:login", urlconf=urlconf)


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """What a login attempt gets while its user name or address is locked out: JSON on the API,
    a page elsewhere; 429 with Retry-After either way. Every attempt during the lockout starts
    the cool-off again, so the wait is the whole cool-off time."""
    cooloff = settings.AXES_COOLOFF_TIME
    seconds = int(cooloff.total_seconds())
    minutes = max(1, math.ceil(seconds / 60))
    message = (f"Too many failed logins for this account. "
               f"Logging in is blocked for {minutes} minutes; every further attempt starts the wait again.")
    response: HttpResponse
    if request.path_info.startswith("/api/") or "application/json" in request.headers.get("Accept", ""):
        response = JsonResponse({"detail": message, "retry_after": seconds}, status=429)
    else:
        response = render(request, LOCKOUT_TEMPLATE, {"minutes": minutes, "limit": settings.AXES_FAILURE_LIMIT},
                          status=429)
    response["Retry-After"] = str(seconds)
    return response


class PasswordResetAddressThrottle(AddressThrottle):
    """Password reset requests per client address."""

    scope = "password_reset"


class PasswordResetAccountThrottle(_RatesFromSettings):
    """Password reset requests per e-mail address asked for, case-folded as the account lookup
    matches it, so per account. Counted before any account is looked up: the answer is the
    same whether an account has the address or not."""

    scope = "password_reset_account"

    def __init__(self, email: str) -> None:
        # Hashed: the cache need not hold the addresses people typed.
        self.ident = hashlib.sha256(email.strip().casefold().encode()).hexdigest()
        super().__init__()

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}
