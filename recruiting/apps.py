from django.apps import AppConfig


class RecruitingConfig(AppConfig):
    name = "recruiting"
    verbose_name = "Recruiting"

    def ready(self) -> None:
        # The engine lies below and never imports recruiting: the panels register as the
        # providers it asks (annotation.providers).
        from recruiting.panel_providers import panels_register

        panels_register()
