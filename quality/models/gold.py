"""The known answer of a gold question or training item."""

from django.conf import settings
from django.db import models


class GoldAnswer(models.Model):
    """The known answer of a gold question or training item, in the task type's answer fields
    (``TaskType.clean_gold``), with other answers it accepts (a pairwise gold pair may accept a
    tie) and an explanation shown as feedback."""

    class Source(models.TextChoices):
        IMPORTED = "imported", "Imported"
        PROMOTED = "promoted", "Promoted from unanimous answers"

    item = models.OneToOneField("annotation.Item", on_delete=models.CASCADE, related_name="gold_answer")
    answer = models.JSONField(help_text="The expected answer, in the task type's answer fields.")
    accept = models.JSONField(default=list, blank=True, help_text="Other answers scored as right.")
    explanation = models.TextField(blank=True, help_text="Shown to the worker with the feedback.")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.IMPORTED)
    # For a promoted item: the votes and posterior that made it gold.
    evidence = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_goldanswer"

    def __str__(self) -> str:
        return f"gold answer of {self.item_id}"
