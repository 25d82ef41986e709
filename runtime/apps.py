from django.apps import AppConfig


class RuntimeConfig(AppConfig):
    """What a running site needs below every other app: 503 answers for a service that is away,
    ``/health/``, the cache that falls back to memory while Redis is away, the 404 handler and
    the static files storage of a deployment. It imports no app of the project."""

    name = "runtime"
    verbose_name = "Runtime"
