"""Security headers and cookies, and the login lockout (django-axes); the request throttles are
in ``config/settings/api.py``."""

from datetime import timedelta

from config.settings.base import DEPLOYED
from config.settings.csp import content_security_policy
from config.settings.env import env_bool, env_int
from config.settings.storage import MEDIA_S3_BUCKET

# Content-Security-Policy on every response (django-csp; the policy and why: config/settings/csp.py).
CONTENT_SECURITY_POLICY = content_security_policy(media_bucket=MEDIA_S3_BUCKET)

# Login lockout (django-axes) on the login page, the admin login and POST /api/token/: after
# AXES_FAILURE_LIMIT failed logins for one user name, from wherever, within the cool-off time,
# logging in as that user is refused (even with the right password) until it passes. Counted
# per user name, not per address: a class behind one NAT address must not lock each other out;
# the "login" throttle (config/settings/api.py) bounds what one address can try.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username"]
# axes.W006 asks for "ip_address" among the lockout parameters, so that changing user agent or
# cookies cannot dodge a limit; here the per-address limit is the "login" throttle, which no
# header changes, and an address-wide lockout would shut out everyone behind a shared address.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
# A success must not wipe failures counted before it: a guesser who gets in once must not start
# a fresh count.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "annotation.throttles.lockout_response"
AXES_CLIENT_IP_CALLABLE = "annotation.throttles.client_address"
AXES_HTTP_RESPONSE_CODE = 429

# Read (and so checked) in every mode, used by a deployment only.
_secure_cookies = env_bool("DJANGO_SECURE_COOKIES", True)
if DEPLOYED:
    SESSION_COOKIE_SECURE = _secure_cookies
    CSRF_COOKIE_SECURE = _secure_cookies
# Behind a proxy that ends TLS and says so in X-Forwarded-Proto, Django must know the request
# came over https (secure redirects, CSRF origin checks). HSTS and the redirect to https are
# the proxy's job.
if env_bool("DJANGO_BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
