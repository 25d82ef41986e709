from django.apps import AppConfig


class RecruitingConfig(AppConfig):
    name = "recruiting"
    verbose_name = "Recruiting"

    def ready(self) -> None:
        # The engine lies below and never imports recruiting: the panels register as the
        # providers it asks (annotation.providers).
        from annotation.ledger_port import ledger_port_register
        from recruiting.panel_providers import panels_register
        from recruiting.sections import sections_register
        from recruiting.services.bonuses import BonusLedger

        panels_register()
        # Each answer's bonus follows it as the engine stores, reviews and revises it.
        ledger_port_register(BonusLedger())
        # What it shows on the project's overview and the worker page, and the bonus action.
        sections_register()
