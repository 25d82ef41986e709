import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Load the URL configuration (and with it every view, task type and report) now, in the server's
# start-up, rather than in the first request each worker answers.
from django.urls import get_resolver  # noqa: E402

url_patterns = get_resolver().url_patterns
