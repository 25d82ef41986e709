"""Settings, driven by the environment.

With nothing set, the project runs embedded: SQLite next to manage.py, and Celery jobs on a
broker that is a folder (run `make run` or `manage.py serve` to have a worker). ``DATABASE_URL``
switches to PostgreSQL and ``REDIS_URL`` to Redis as broker and cache.
"""

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    # Only for local runs; a deployment without DEBUG refuses to start without a real key.
    SECRET_KEY = "insecure-local-development-key"

ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

# Real public data (UKPConvArg1 and others) used by the demo and reproduction commands.
SHARED_DATA_DIR = Path(os.environ.get("SHARED_DATA_DIR", BASE_DIR.parent / "shared" / "data"))

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
    "annotation",
    "analysis",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "annotation.middleware.PasswordChangeRequiredMiddleware",
]

if not DEBUG:
    # Static files straight from gunicorn in production; runserver serves them when DEBUG is on.
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
            ],
        },
    },
]

_database_url = os.environ.get("DATABASE_URL", "")
if _database_url:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": {
                # IMMEDIATE takes the write lock when a transaction starts, so two requests can
                # never both read "one slot left" and both write: SQLite's stand-in for row locks.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
    # In-memory databases cannot use WAL; the test runner creates one.
    DATABASES["default"]["TEST"] = {"NAME": os.environ.get("SQLITE_TEST_PATH") or None}

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
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Uploads of item files are parsed from memory up to this size, then from a temporary file.
DATA_UPLOAD_MAX_MEMORY_SIZE = 50 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
}

# Files the running platform writes: uploads waiting for their import job, the embedded job
# queue and the embedded cache. One folder, so that a test run or a second checkout can be given
# its own (ARGCROWD_VAR_DIR).
VAR_DIR = Path(os.environ.get("ARGCROWD_VAR_DIR") or BASE_DIR / "var")
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or VAR_DIR / "media")

# Background jobs run on Celery in every mode, never inside a web request. With REDIS_URL, Redis
# is the broker and the cache; without it (the embedded default) the broker is a folder of
# message files and the cache a folder too, so that `make run` needs no server: its worker and
# the web server share both through the disk.
REDIS_URL = os.environ.get("REDIS_URL", "")


def embedded_job_settings(var_dir: Path) -> dict:
    """Broker and cache settings of the embedded mode, rooted at ``var_dir`` (also used by the
    test suite to give each test session its own queue)."""
    queue, processed = var_dir / "broker" / "queue", var_dir / "broker" / "processed"
    for folder in (queue, processed, var_dir / "cache"):
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "CELERY_BROKER_TRANSPORT_OPTIONS": {
            "data_folder_in": str(queue), "data_folder_out": str(queue),
            "processed_folder": str(processed), "control_folder": str(var_dir / "broker"),
        },
        "CACHES": {"default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(var_dir / "cache"),
            # Culling drops random entries; a live job's heartbeat must not be one of them.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }},
    }


if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CELERY_BROKER_URL = "filesystem://"
    _embedded = embedded_job_settings(VAR_DIR)
    CELERY_BROKER_TRANSPORT_OPTIONS = _embedded["CELERY_BROKER_TRANSPORT_OPTIONS"]
    CACHES = _embedded["CACHES"]
# Job state lives in the database (and live progress in the cache); Celery's own results are
# never read.
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "argcrowd")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A web request that queues a job must not hang when the broker is down: it fails fast and the
# job is marked failed with the reason.
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5}
CELERY_BEAT_SCHEDULE = {
    "expire-leases": {"task": "annotation.expire_leases", "schedule": 60.0},
    "reap-dead-jobs": {"task": "annotation.reap_dead_jobs", "schedule": 15.0},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# A running job refreshes its heartbeat this often; one whose heartbeat is older than
# JOB_DEAD_SECONDS is taken for dead (its worker was killed) and can be restarted at once.
JOB_HEARTBEAT_SECONDS = float(os.environ.get("JOB_HEARTBEAT_SECONDS", 5))
JOB_DEAD_SECONDS = float(os.environ.get("JOB_DEAD_SECONDS", 45))
# Uploads up to this size are imported within the request; larger ones become a job.
IMPORT_INLINE_MAX_BYTES = int(os.environ.get("IMPORT_INLINE_MAX_BYTES", 64 * 1024))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
