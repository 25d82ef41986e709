from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_roles(sender, **kwargs) -> None:
    from annotation.services.accounts import role_groups_sync

    role_groups_sync()


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Crowd annotation"

    def ready(self) -> None:
        # Task types register themselves on import.
        from annotation import task_types  # noqa: F401

        # Permissions exist only after each app has migrated; the role groups follow them.
        post_migrate.connect(_sync_roles, dispatch_uid="annotation.sync_roles")
