"""The REST API (Django REST framework): authentication, parsers, pagination and the throttles."""

from config.settings.env import env_int, env_rate

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "annotation.api.authentication.SessionAuthentication",  # DRF's, refusing one-time passwords
        "annotation.api.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],  # see docs/security.md
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_PARSER_CLASSES": [
        "annotation.api.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Counted in the shared cache below, so the limits hold across gunicorn workers.
    "DEFAULT_THROTTLE_CLASSES": [
        "annotation.throttles.AnonThrottle",
        "annotation.throttles.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("THROTTLE_ANON", "60/min"),
        "user": env_rate("THROTTLE_USER", "600/min"),
        # Login attempts per client address on the login page and the admin login, and (stricter,
        # scripts need few) on POST /api/token/: one address cannot try password after password
        # on many accounts.
        "login": env_rate("THROTTLE_LOGIN", "30/min"),
        "token": env_rate("THROTTLE_TOKEN", "10/min"),
        # Join codes per user and per client address: codes cannot be guessed by trying.
        "join": env_rate("THROTTLE_JOIN", "10/min"),
        "join_address": env_rate("THROTTLE_JOIN_ADDRESS", "60/min"),
        # Marketplace entry links per client address (each new worker id creates an account).
        "start": env_rate("THROTTLE_START", "30/min"),
        # Password reset requests per client address, and per e-mail address asked for (counted
        # alike whether an account has it or not): nobody can flood an inbox or the mail server.
        "password_reset": env_rate("THROTTLE_PASSWORD_RESET", "10/hour"),
        "password_reset_account": env_rate("THROTTLE_PASSWORD_RESET_ACCOUNT", "3/hour"),
    },
    # Proxies in front of the app that append to X-Forwarded-For; 0 trusts REMOTE_ADDR only
    # (DRF's default, None, would believe whatever X-Forwarded-For a client sends).
    "NUM_PROXIES": env_int("DJANGO_TRUSTED_PROXIES", 0),
    "EXCEPTION_HANDLER": "runtime.unavailable_responses.api_exception_handler",  # 503 + Retry-After
    "DEFAULT_SCHEMA_CLASS": "annotation.api.autoschema.ApiAutoSchema",
}
UNAVAILABLE_RETRY_AFTER = env_int("UNAVAILABLE_RETRY_AFTER", 10)  # what a 503 asks clients to wait (s)
