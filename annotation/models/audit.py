"""The audit log of staff actions."""

from django.conf import settings
from django.db import models


class AuditEntry(models.Model):
    """A staff action: who did what to what, when."""

    at = models.DateTimeField()
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    # The actor's user name when the entry was written: the log still says who acted after the
    # account is deleted (the foreign key then becomes NULL). Empty: the platform itself.
    actor_name = models.CharField(max_length=150, blank=True, default="")
    project = models.ForeignKey("annotation.Project", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="audit_entries")
    action = models.CharField(max_length=40, help_text="e.g. reject, block, bonus, export, rerun, settings.")
    target = models.CharField(max_length=300, blank=True, help_text="What it was done to.")
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["project", "at"], name="audit_project_at"),
                   models.Index(fields=["at"], name="audit_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.target}"
