"""Items a worker reported as broken."""

from django.conf import settings
from django.db import models


class ItemFlag(models.Model):
    """A worker reported an item as broken instead of answering it; the assignment was given back."""

    class Problem(models.TextChoices):
        MEDIA = "media", "The audio does not play"
        TEXT = "text", "The text is garbled or missing"
        OPTIONS = "options", "No option fits"
        OTHER = "other", "Something else"

    assignment = models.OneToOneField("annotation.Assignment", on_delete=models.CASCADE, related_name="flag")
    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="item_flags")
    item = models.ForeignKey("annotation.Item", on_delete=models.CASCADE, related_name="flags")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    problem = models.CharField(max_length=10, choices=Problem.choices)
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.CharField(max_length=20, blank=True, help_text="withdrawn or dismissed.")

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_itemflag"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "resolved_at"], name="itemflag_project_open")]

    def __str__(self) -> str:
        return f"flag of {self.item_id} by {self.worker_id}"
