"""The site itself: paths, debug and secret key, hosts, apps and middleware, templates, log.

The other modules of this package hold one integration each (``config/settings/__init__.py``).
"""

import os
import sys
from pathlib import Path

from config.settings.env import env_bool, env_choice, env_list, env_origins, env_str

BASE_DIR = Path(__file__).resolve().parents[2]


# A test run is recognised by pytest having been imported (it never is in a deployment), and it
# hands that on to the processes it starts (a Celery worker, concurrent clients) through the
# environment. Tests need no secret key and serve static files uncollected.
TESTING = "pytest" in sys.modules or os.environ.get("ARGCROWD_TEST_RUN") == "1"
if "pytest" in sys.modules:
    os.environ["ARGCROWD_TEST_RUN"] = "1"

# Off unless asked for: a deployment that forgets the variable must not show tracebacks.
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not (DEBUG or TESTING):
        raise RuntimeError(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off "
            "(for a local run, set DJANGO_DEBUG=1 as `make run` does)"
        )
    # Only for local runs and tests; a deployment refuses to start without a real key.
    SECRET_KEY = "insecure-local-development-key"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_origins("DJANGO_CSRF_TRUSTED_ORIGINS")

# Real public data (UKPConvArg1 and others) used by the demo and reproduction commands.
SHARED_DATA_DIR = Path(env_str("SHARED_DATA_DIR", str(BASE_DIR.parent / "shared" / "data")))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "runtime",
    "jobs",
    "annotation",
    "analysis",
    "quality",
    "recruiting",
    # Task types: one app each (task_types/__init__.py).
    "task_types.comprehension",
    "task_types.counter_speech",
    "task_types.key_points",
    "task_types.key_point_sets",
    "task_types.response_scoring",
    "task_types.pairwise",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A service that is away (the database) answers 503 + Retry-After, not 500.
    "runtime.unavailable_responses.ServiceUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "annotation.body_limits.AnonymousBodyLimitMiddleware",  # 64 KB without a login, before any read
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "annotation.middleware.PasswordChangeRequiredMiddleware",
    "annotation.throttles.LoginThrottleMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# A deployment (neither DEBUG nor a test run) serves static files straight from gunicorn,
# collected and hashed by collectstatic, and sends cookies over https only; runserver serves
# static files when DEBUG is on, and tests read them from the source tree over plain http.
DEPLOYED = not (DEBUG or TESTING)
if DEPLOYED:
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "annotation.context_processors.password_reset",
            ],
        },
    },
]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))

# Files the running platform writes: uploads waiting for their import job, the embedded job
# queue and the embedded cache. One folder, so that a test run or a second checkout can be given
# its own (ARGCROWD_VAR_DIR).
VAR_DIR = Path(env_str("ARGCROWD_VAR_DIR", str(BASE_DIR / "var")))

_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "WARNING", _LOG_LEVELS)},
}
