"""Settings, driven by the environment.

With nothing set, the project runs embedded: SQLite next to manage.py, and Celery jobs on a
broker that is a folder (run `make run` or `manage.py serve` to have a worker). ``DATABASE_URL``
switches to PostgreSQL and ``REDIS_URL`` to Redis as broker and cache.
"""

import os
import sys
from datetime import timedelta
from pathlib import Path

import dj_database_url

from config.api_schema import SPECTACULAR_SETTINGS  # noqa: F401  (the OpenAPI schema's settings)
from config.csp import content_security_policy
from config.embedded import embedded_job_settings
from config.env import env_bool, env_int
from config.mail import mail_settings
from config.marketplaces import *  # noqa: F403  (the marketplaces' settings)

BASE_DIR = Path(__file__).resolve().parent.parent


# A test run is recognised by pytest having been imported (it never is in a deployment), and it
# hands that on to the processes it starts (a Celery worker, concurrent clients) through the
# environment. Tests need no secret key and serve static files uncollected.
TESTING = "pytest" in sys.modules or os.environ.get("ARGCROWD_TEST_RUN") == "1"
if "pytest" in sys.modules:
    os.environ["ARGCROWD_TEST_RUN"] = "1"

# Off unless asked for: a deployment that forgets the variable must not show tracebacks.
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not (DEBUG or TESTING):
        raise RuntimeError(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off "
            "(for a local run, set DJANGO_DEBUG=1 as `make run` does)"
        )
    # Only for local runs and tests; a deployment refuses to start without a real key.
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
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
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
    "config.unavailable_responses.ServiceUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
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

_database_url = os.environ.get("DATABASE_URL", "")
if _database_url:
    # Kept connections are checked before use: no request meets one a database restart killed.
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60, conn_health_checks=True)}
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

# PostgreSQL: statements are sent with their parameters apart (server-side binding), and psycopg
# prepares each one that a connection runs a fifth time, so the server plans the annotator's
# loop once per connection rather than on every request. Set DATABASE_PREPARED=0 behind a
# connection pooler in transaction mode that does not track prepared statements.
DATABASE_PREPARED = env_bool("DATABASE_PREPARED", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=5 if DATABASE_PREPARED else None)

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
# Uploads waiting for their import job and the projects' audio files go to the default storage:
# folders under MEDIA_ROOT (below), or an S3-compatible bucket when MEDIA_S3_BUCKET is set, so
# that web replicas and job workers on several machines share them. Neither is ever served at a
# public URL: audio goes out through a view that checks who asks (annotation/media_serving.py).
MEDIA_S3_BUCKET = os.environ.get("MEDIA_S3_BUCKET", "").strip()
if MEDIA_S3_BUCKET:
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": MEDIA_S3_BUCKET,
            # Empty for AWS itself; the URL of MinIO, Ceph, R2 … otherwise. Credentials come from
            # the usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or an instance role).
            "endpoint_url": os.environ.get("MEDIA_S3_ENDPOINT_URL", "").strip() or None,
            "region_name": os.environ.get("MEDIA_S3_REGION", "").strip() or None,
            "default_acl": None,
            # Never overwrite: every stored name is new, and a clash must not replace a file.
            "file_overwrite": False,
            # A file opened for reading is downloaded to a temporary file; past this size it
            # goes to disk instead of staying in memory (0, the default, would keep it in memory).
            "max_memory_size": 2 * 1024 * 1024,
        },
    }
else:
    _default_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
# On S3, an audio player's range requests are redirected to a presigned URL of the object,
# valid this many seconds (annotation/media_serving.py).
MEDIA_PRESIGNED_SECONDS = env_int("MEDIA_PRESIGNED_SECONDS", 300)
STORAGES = {
    "default": _default_storage,
    "staticfiles": {
        "BACKEND": "config.staticfiles.StaticFilesStorage"
        if DEPLOYED
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Content-Security-Policy on every response (django-csp; the policy and why: config/csp.py).
CONTENT_SECURITY_POLICY = content_security_policy(media_bucket=MEDIA_S3_BUCKET)

# Form fields and JSON bodies (not files) may hold this much; Django refuses larger ones.
DATA_UPLOAD_MAX_MEMORY_SIZE = 50 * 1024 * 1024
# Uploaded files stay in memory up to this size, then go to a temporary file...
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# ...and the files of one request may add up to no more than this: the first handler stops
# passing on a file past it, so an oversized upload never reaches memory or disk whole
# (annotation/uploads.py).
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_MB", 200) * 1024 * 1024
FILE_UPLOAD_HANDLERS = [
    "annotation.uploads.UploadLimitHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# A gzipped import may unpack to at most this much; beyond it the import is refused, so a small
# "gzip bomb" cannot fill the server's memory.
IMPORT_MAX_DECOMPRESSED_BYTES = env_int("IMPORT_MAX_DECOMPRESSED_MB", 200) * 1024 * 1024
# One audio file may be at most this large (MB), uploaded alone or inside a zip; a zip of audio
# files may unpack to IMPORT_MAX_DECOMPRESSED_MB in all and hold at most MEDIA_MAX_ZIP_MEMBERS
# entries, so that a small zip cannot make the server unpack or list without end.
MEDIA_MAX_FILE_MB = env_int("MEDIA_MAX_FILE_MB", 50)
MEDIA_MAX_ZIP_MEMBERS = env_int("MEDIA_MAX_ZIP_MEMBERS", 10_000)

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
        "anon": os.environ.get("THROTTLE_ANON", "60/min"),
        "user": os.environ.get("THROTTLE_USER", "600/min"),
        # Login attempts per client address on the login page and the admin login, and (stricter,
        # scripts need few) on POST /api/token/: one address cannot try password after password
        # on many accounts.
        "login": os.environ.get("THROTTLE_LOGIN", "30/min"),
        "token": os.environ.get("THROTTLE_TOKEN", "10/min"),
        # Join codes per user and per client address: codes cannot be guessed by trying.
        "join": os.environ.get("THROTTLE_JOIN", "10/min"),
        "join_address": os.environ.get("THROTTLE_JOIN_ADDRESS", "60/min"),
        # Marketplace entry links per client address (each new worker id creates an account).
        "start": os.environ.get("THROTTLE_START", "30/min"),
        # Password reset requests per client address, and per e-mail address asked for (counted
        # alike whether an account has it or not): nobody can flood an inbox or the mail server.
        "password_reset": os.environ.get("THROTTLE_PASSWORD_RESET", "10/hour"),
        "password_reset_account": os.environ.get("THROTTLE_PASSWORD_RESET_ACCOUNT", "3/hour"),
    },
    # Proxies in front of the app that append to X-Forwarded-For; 0 trusts REMOTE_ADDR only
    # (DRF's default, None, would believe whatever X-Forwarded-For a client sends).
    "NUM_PROXIES": env_int("DJANGO_TRUSTED_PROXIES", 0),
    "EXCEPTION_HANDLER": "config.unavailable_responses.api_exception_handler",  # 503 + Retry-After
    "DEFAULT_SCHEMA_CLASS": "annotation.api.autoschema.ApiAutoSchema",
}
UNAVAILABLE_RETRY_AFTER = env_int("UNAVAILABLE_RETRY_AFTER", 10)  # what a 503 asks clients to wait (s)

# Login lockout (django-axes) on the login page, the admin login and POST /api/token/: after
# AXES_FAILURE_LIMIT failed logins for one user name, from wherever, within the cool-off time,
# logging in as that user is refused (even with the right password) until it passes. Counted
# per user name, not per address: a class behind one NAT address must not lock each other out;
# the "login" throttle above bounds what one address can try.
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

# The cache also counts throttled requests for every process. While Redis is away, each process uses
# its own memory, retrying Redis CACHE_FALLBACK_SECONDS later (config/cache.py) without a timeout.
CACHE_FALLBACK_SECONDS = float(os.environ.get("CACHE_FALLBACK_SECONDS", 5))
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # A Redis that accepts connections but does not answer (frozen, swapping) must not hold a
    # request that queues a job, or the health probe, past these seconds.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 3}
    CACHES = {"default": {"BACKEND": "config.cache.FallbackRedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "argcrowd"),
                          "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 2}}}
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
    # Queues a sync of each linked Prolific study whose poll interval has passed.
    "prolific-poll": {"task": "annotation.prolific_poll", "schedule": float(PROLIFIC_POLL_TICK_SECONDS)},  # noqa: F405
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# A running job refreshes its heartbeat this often; one whose heartbeat is older than
# JOB_DEAD_SECONDS is taken for dead (its worker was killed) and can be restarted at once.
JOB_HEARTBEAT_SECONDS = float(os.environ.get("JOB_HEARTBEAT_SECONDS", 5))
JOB_DEAD_SECONDS = float(os.environ.get("JOB_DEAD_SECONDS", 45))
# Attempts a job gets (each claim by a worker counts, a redelivered message's too); once they
# are used up the job fails with the last attempt's error. A restart gives it as many again.
JOB_MAX_ATTEMPTS = int(os.environ.get("JOB_MAX_ATTEMPTS", 3))
# A queued job that no worker has taken for this long while no other job runs lost its message:
# the scheduler sends it again, up to JOB_MAX_ATTEMPTS times, then fails it with the reason.
JOB_QUEUED_SECONDS = float(os.environ.get("JOB_QUEUED_SECONDS", 300))
# Staff pages count a project's workers and answers per hour as they render up to this many
# assignments; above it they show the tally a background job counts, at most this many seconds
# old (annotation.selectors.tallies).
STAFF_LIVE_ASSIGNMENTS = int(os.environ.get("STAFF_LIVE_ASSIGNMENTS", 250_000))
STAFF_TALLY_SECONDS = float(os.environ.get("STAFF_TALLY_SECONDS", 60))
# MACE in analysis runs refuses (with advice) data that would need more memory than this.
MACE_MAX_MEMORY_BYTES = env_int("MACE_MAX_MEMORY_MB", 4096) * 2**20
# Uploads up to this size are imported within the request; larger ones become a job.
IMPORT_INLINE_MAX_BYTES = int(os.environ.get("IMPORT_INLINE_MAX_BYTES", 64 * 1024))

# Outgoing mail, for password reset only (config/mail.py): without EMAIL_HOST, none, and no reset.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "").strip()
PASSWORD_RESET_ENABLED = bool(EMAIL_HOST)
if EMAIL_HOST:
    globals().update(mail_settings(EMAIL_HOST))
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)  # seconds a request waits for the mail server

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

if DEPLOYED:
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
# Behind a proxy that ends TLS and says so in X-Forwarded-Proto, Django must know the request
# came over https (secure redirects, CSRF origin checks). HSTS and the redirect to https are
# the proxy's job.
if env_bool("DJANGO_BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
