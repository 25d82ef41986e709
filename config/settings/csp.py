"""The Content-Security-Policy every response carries (django-csp reads it from settings).

Scripts, styles, fonts and pictures come from this site only: no inline script, style or event
handler, no eval (htmx runs with allowEval=false), no plugins, no framing, and forms post here
only. Audio comes from this site or, with S3 storage, from the bucket that the media view
redirects range requests to (``MEDIA_S3_PUBLIC_ORIGIN`` overrides the origins derived from the
bucket and endpoint settings).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from config.settings.env import env_origins, env_str, env_url


def media_origins(media_bucket: str) -> list[str]:
    """Where presigned media URLs point, for ``media-src``."""
    if not media_bucket:
        return []
    explicit = env_origins("MEDIA_S3_PUBLIC_ORIGIN", separator=None)
    if explicit:
        return explicit
    endpoint = env_url("MEDIA_S3_ENDPOINT_URL", "", schemes=("https", "http"))
    if endpoint:
        parts = urlsplit(endpoint)
        # Path-style URLs on the endpoint, or the bucket as a sub-domain of it.
        return [f"{parts.scheme}://{parts.netloc}", f"{parts.scheme}://{media_bucket}.{parts.netloc}"]
    region = env_str("MEDIA_S3_REGION", "")
    origins = [f"https://{media_bucket}.s3.amazonaws.com"]
    if region:
        origins.append(f"https://{media_bucket}.s3.{region}.amazonaws.com")
    return origins


def content_security_policy(*, media_bucket: str) -> dict:
    return {
        "DIRECTIVES": {
            "default-src": ["'self'"],
            "script-src": ["'self'"],
            "style-src": ["'self'"],
            "img-src": ["'self'"],
            "font-src": ["'self'"],
            "media-src": ["'self'", *media_origins(media_bucket)],
            "connect-src": ["'self'"],
            "object-src": ["'none'"],
            "base-uri": ["'none'"],
            "form-action": ["'self'"],
            "frame-ancestors": ["'none'"],
        },
    }
