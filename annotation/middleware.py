from django.shortcuts import redirect
from django.urls import reverse


class PasswordChangeRequiredMiddleware:
    """Sends a user with a one-time password to the password form before anything else."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            profile = getattr(user, "profile", None)
            if profile is not None and profile.must_change_password:
                allowed = (reverse("password_change"), reverse("logout"), reverse("password_change_done"))
                # The API answers such an account itself, with a 403 that says why
                # (``annotation.api.authentication``): a client cannot follow a redirect to a form.
                api = request.path.startswith("/api/")
                if request.path not in allowed and not request.path.startswith("/static/") and not api:
                    return redirect("password_change")
        return self.get_response(request)
