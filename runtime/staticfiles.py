"""The static files storage of a deployment: collected, hashed and compressed (WhiteNoise), and a
page that names a file missing from the manifest (``collectstatic`` not run, or a file added
since) still renders, naming the file as it is, instead of answering 500. An unknown address
keeps its 404 that way, in every configuration."""

from __future__ import annotations

import logging
from functools import lru_cache

from whitenoise.storage import CompressedManifestStaticFilesStorage

logger = logging.getLogger(__name__)


@lru_cache(maxsize=256)
def _warn_once(name: str) -> None:
    logger.warning("static file %r is not in the manifest: run `manage.py collectstatic`", name)


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    # Django's own fallback for a missing entry (hash the file in STATIC_ROOT) needs the file
    # collected too; what is not there is named as it is.
    manifest_strict = False

    def stored_name(self, name: str) -> str:
        try:
            return super().stored_name(name)
        except ValueError:
            _warn_once(name)
            return name
