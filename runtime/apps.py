from django.apps import AppConfig
from django.db.models.signals import post_migrate


def cache_table_create(*, using: str, **kwargs) -> None:
    """Make the database cache's table (embedded mode) whenever the database is migrated: a
    no-op when it exists or when the cache is Redis."""
    from django.core.management import call_command

    call_command("createcachetable", database=using, verbosity=0)


class RuntimeConfig(AppConfig):
    """What a running site needs below every other app: 503 answers for a service that is away,
    ``/health/``, the caches (Redis falling back to memory, or the database), the 404 handler
    and the static files storage of a deployment. It imports no app of the project."""

    name = "runtime"
    verbose_name = "Runtime"

    def ready(self) -> None:
        # Sent once per app that has models (this one has none); the command skips a table that
        # exists, so the repeats cost a look at the schema each.
        post_migrate.connect(cache_table_create, dispatch_uid="runtime.cache_table_create")
