"""The broker and the cache: Redis from ``REDIS_URL``, or folders on disk (embedded)."""

from config.settings.base import VAR_DIR
from config.settings.embedded import embedded_job_settings
from config.settings.env import env_float, env_str, env_url

# Background jobs run on Celery in every mode, never inside a web request. With REDIS_URL, Redis
# is the broker and the cache; without it (the embedded default) the broker is a folder of
# message files and the cache a folder too, so that `make run` needs no server: its worker and
# the web server share both through the disk.
REDIS_URL = env_url("REDIS_URL", "", schemes=("redis", "rediss", "unix"))

# The cache also counts throttled requests for every process. While Redis is away, each process uses
# its own memory, retrying Redis CACHE_FALLBACK_SECONDS later (runtime/cache.py) without a timeout.
CACHE_FALLBACK_SECONDS = env_float("CACHE_FALLBACK_SECONDS", 5.0)
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # A Redis that accepts connections but does not answer (frozen, swapping) must not hold a
    # request that queues a job, or the health probe, past these seconds.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 3}
    CACHES = {"default": {"BACKEND": "runtime.cache.FallbackRedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "argcrowd"),
                          "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 2}}}
else:
    CELERY_BROKER_URL = "filesystem://"
    _embedded = embedded_job_settings(VAR_DIR)
    CELERY_BROKER_TRANSPORT_OPTIONS = _embedded["CELERY_BROKER_TRANSPORT_OPTIONS"]
    CACHES = _embedded["CACHES"]
