"""Sending password reset mail, honestly: the mail server is reached before any account is
looked up, so that a server that cannot be reached is reported to everyone alike (without
telling whether an account has the address), and a mail that fails is logged in one line
rather than with a traceback per request."""

from __future__ import annotations

import contextlib
import logging

from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.http import HttpRequest
from django.template import loader

logger = logging.getLogger(__name__)


class MailUnavailable(Exception):
    """The mail server cannot be reached (or refuses the platform's login)."""


class ResetRequestForm(PasswordResetForm):
    """Django's form, sending through one connection opened beforehand, and counting the mails
    that fail instead of logging each with a traceback."""

    connection: BaseEmailBackend | None = None
    failed = 0

    def send_mail(self, subject_template_name, email_template_name, context, from_email, to_email,
                  html_email_template_name=None) -> None:
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        body = loader.render_to_string(email_template_name, context)
        message = EmailMultiAlternatives(subject, body, from_email, [to_email], connection=self.connection)
        try:
            message.send()
        except Exception as exc:  # the mail backend may raise anything (SMTP, socket, TLS errors)
            self.failed += 1
            logger.warning("password reset mail for user %s not sent: %s: %s", context["user"].pk,
                           type(exc).__name__, exc)


def password_reset_send(*, form: ResetRequestForm, request: HttpRequest, **options) -> int:
    """Send the reset mail to every active account with the form's address (Django's rules);
    ``options`` go to ``PasswordResetForm.save``. Returns the number of mails that failed.
    Raises MailUnavailable, before looking anyone up, when the mail server cannot be reached."""
    connection = get_connection(fail_silently=False)
    try:
        connection.open()
    except Exception as exc:  # socket errors, SMTP errors, TLS errors alike mean "cannot send"
        logger.warning("password reset: the mail server cannot be reached: %s: %s", type(exc).__name__, exc)
        raise MailUnavailable(str(exc)) from None
    form.connection, form.failed = connection, 0
    try:
        form.save(request=request, **options)
    finally:
        # Closing a broken connection may fail too; the mails are out or not.
        with contextlib.suppress(Exception):
            connection.close()
    return form.failed
