"""The people of the crowd workflow: a worker's profile (role, marketplace id, site-wide block),
the consent a marketplace worker accepted, and one-time invite links.

Fields and constraints only; every state change goes through ``annotation.services``.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q


class WorkerProfile(models.Model):
    class Role(models.TextChoices):
        ADMIN = "admin", "Admin"
        RESEARCHER = "researcher", "Researcher"
        ANNOTATOR = "annotator", "Annotator"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    role = models.CharField(max_length=12, choices=Role.choices, default=Role.ANNOTATOR)
    blocked = models.BooleanField(default=False)
    blocked_reason = models.CharField(max_length=500, blank=True)
    blocked_at = models.DateTimeField(null=True, blank=True)
    source = models.CharField(
        max_length=40, blank=True, help_text="Marketplace the worker came from (mturk, prolific …)."
    )
    # NULL rather than "" for accounts made here, so the unique constraint skips them.
    external_id = models.CharField(  # noqa: DJ001
        max_length=200, null=True, blank=True, help_text="The worker's id on that marketplace."
    )
    must_change_password = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "external_id"],
                condition=Q(external_id__isnull=False),
                name="worker_external_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role})"


class Consent(models.Model):
    """A marketplace worker accepted a project's welcome and consent text, as it read then."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="consents")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(blank=True, help_text="The consent text the worker accepted.")
    accepted_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "worker"], name="consent_project_worker_unique"),
        ]

    def __str__(self) -> str:
        return f"consent of {self.worker} to {self.project}"


class Invite(models.Model):
    """A one-time link that lets a new annotator set a password and log in."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey("annotation.Project", null=True, blank=True, on_delete=models.SET_NULL)
    # Only a hash is stored: the link itself is shown once, when it is created.
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"invite for {self.user}"
