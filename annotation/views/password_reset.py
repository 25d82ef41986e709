"""Password reset pages: Django's, switched off unless the platform can send mail
(``PASSWORD_RESET_ENABLED``), throttled per client address and per address asked for, and
telling the user when the mail server cannot be reached."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render

from annotation.services.password_reset import (
    MailUnavailable,
    ResetRequestForm,
    password_reset_send,
)
from annotation.throttles import (
    PasswordResetAccountThrottle,
    PasswordResetAddressThrottle,
    too_many_requests,
)

logger = logging.getLogger(__name__)
OFF_TEMPLATE = "registration/password_reset_off.html"
# What a request answers while the mail server cannot be reached: seconds to wait.
RETRY_AFTER = 300


def when_enabled(view: Callable) -> Callable:
    """The view while password reset is on; a 404 page saying to ask an administrator when off."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not settings.PASSWORD_RESET_ENABLED:
            return render(request, OFF_TEMPLATE, status=404)
        return view(request, *args, **kwargs)

    return wrapped


class ResetRequestView(auth_views.PasswordResetView):
    form_class = ResetRequestForm

    def post(self, request, *args, **kwargs):
        address = PasswordResetAddressThrottle()
        if not address.allow_request(request, None):
            return too_many_requests(request, address.wait())
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        # Counted for the address asked for before anyone is looked up: an account with the
        # address and none get the same answers in the same order.
        account = PasswordResetAccountThrottle(form.cleaned_data["email"])
        if not account.allow_request(self.request, None):
            return too_many_requests(self.request, account.wait())
        try:
            password_reset_send(form=form, request=self.request, use_https=self.request.is_secure(),
                                token_generator=self.token_generator, from_email=self.from_email,
                                email_template_name=self.email_template_name,
                                subject_template_name=self.subject_template_name,
                                html_email_template_name=self.html_email_template_name,
                                extra_email_context=self.extra_email_context)
        except MailUnavailable:
            form.add_error(None, "No mail can be sent right now: the mail server cannot be reached. "
                                 "Please try again later, or ask an administrator to set a new password for you.")
            response = self.render_to_response(self.get_context_data(form=form), status=503)
            response["Retry-After"] = str(RETRY_AFTER)
            return response
        return HttpResponseRedirect(self.get_success_url())


password_reset = when_enabled(ResetRequestView.as_view())
password_reset_done = when_enabled(auth_views.PasswordResetDoneView.as_view())
password_reset_confirm = when_enabled(auth_views.PasswordResetConfirmView.as_view())
password_reset_complete = when_enabled(auth_views.PasswordResetCompleteView.as_view())
