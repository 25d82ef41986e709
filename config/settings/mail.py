"""Outgoing mail, used for password reset only.

Without ``EMAIL_HOST`` the platform sends no mail and password reset is off: no link on the
login page, and its pages answer 404 saying to ask an administrator (who sets a new password in
the admin). With it, these settings send through that SMTP server.
"""

from __future__ import annotations

from config.settings.env import env_bool, env_int, env_str


def mail_settings(host: str) -> dict:
    """Django's mail settings for the SMTP server ``host``, from the environment."""
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_PORT": env_int("EMAIL_PORT", 587, minimum=1, maximum=65535),
        "EMAIL_HOST_USER": env_str("EMAIL_HOST_USER", ""),
        "EMAIL_HOST_PASSWORD": env_str("EMAIL_HOST_PASSWORD", ""),
        "EMAIL_USE_TLS": env_bool("EMAIL_USE_TLS", True),
        "EMAIL_USE_SSL": env_bool("EMAIL_USE_SSL", False),
        "DEFAULT_FROM_EMAIL": env_str("DEFAULT_FROM_EMAIL", f"ArgCrowd <noreply@{host}>"),
    }


# Outgoing mail, for password reset only (mail_settings above): without EMAIL_HOST, none, and no reset.
EMAIL_HOST = env_str("EMAIL_HOST", "")
PASSWORD_RESET_ENABLED = bool(EMAIL_HOST)
if EMAIL_HOST:
    globals().update(mail_settings(EMAIL_HOST))
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)  # seconds a request waits for the mail server
