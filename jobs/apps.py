from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "Background jobs"

    def ready(self) -> None:
        from jobs.health import worker_state
        from runtime.health import health_component_register

        health_component_register(name="worker", check=worker_state)
