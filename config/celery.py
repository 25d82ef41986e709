import logging
import os
import socket
import threading

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger(__name__)
app = Celery("argcrowd")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_stop = threading.Event()


@worker_ready.connect
def _announce(sender=None, **kwargs) -> None:
    """Tell the pages that a job worker is alive, every heartbeat, so that a queued job whose
    worker is missing says so instead of waiting in silence."""
    from jobs.live import heartbeat_seconds, worker_beat

    hostname = getattr(sender, "hostname", None) or socket.gethostname()

    def beat() -> None:
        while True:
            try:
                worker_beat(hostname)
            except Exception:  # the cache may be briefly unreachable; keep beating
                logger.warning("could not announce the job worker", exc_info=True)
            if _stop.wait(heartbeat_seconds()):
                return

    threading.Thread(target=beat, name="worker-heartbeat", daemon=True).start()


@worker_shutdown.connect
def _quiet(**kwargs) -> None:
    _stop.set()
