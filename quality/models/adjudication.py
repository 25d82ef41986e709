"""Staff decisions on contested items."""

from django.conf import settings
from django.db import models


class Adjudication(models.Model):
    """A staff decision on a contested item: the answer it takes, with who, when and why.
    One per item; a later decision replaces it and the audit log keeps the earlier ones."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="adjudications")
    item = models.OneToOneField("annotation.Item", on_delete=models.CASCADE, related_name="adjudication")
    answer = models.JSONField(help_text="The decided answer, in the task type's answer fields.")
    why = models.TextField(help_text="The adjudicator's reason.")
    contested = models.JSONField(default=list, blank=True, help_text="Why the item was in the queue.")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField()

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_adjudication"

    def __str__(self) -> str:
        return f"adjudication of {self.item_id}"
