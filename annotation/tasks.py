"""Celery jobs of the crowd workflow (thin: they call a service)."""

from celery import shared_task

from annotation.services import leases_expire


@shared_task(name="annotation.expire_leases")
def expire_leases() -> int:
    """Return overdue assignments to the pool; scheduled every minute by celery beat."""
    return leases_expire()
