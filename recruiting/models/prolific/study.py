"""A project's link to a study on a recruiting marketplace's API (Prolific).

Fields and constraints only. The API token is not here: it is a secret setting
(``PROLIFIC_API_TOKEN``), never stored in the database or shown.
"""

from __future__ import annotations

from django.core.validators import MinValueValidator, RegexValidator
from django.db import models

STUDY_ID_RE = r"^[A-Za-z0-9_-]{1,100}$"


class ProlificStudy(models.Model):
    project = models.OneToOneField("annotation.Project", on_delete=models.CASCADE, related_name="prolific_study")
    study_id = models.CharField(
        "Prolific study id", max_length=100,
        validators=[RegexValidator(STUDY_ID_RE, "A study id holds only letters, digits, - and _.")],
        help_text="The id in the study's address on Prolific, e.g. 64f1c0ffee0123456789abcd.",
    )
    poll_seconds = models.PositiveIntegerField(
        default=60, validators=[MinValueValidator(10)],
        help_text="How often the platform reads the study's submissions from Prolific (seconds).",
    )
    auto_approve = models.BooleanField(
        default=False, help_text="Approve completed submissions of workers in good standing on their own.",
    )
    auto_reject = models.BooleanField(
        default=False, help_text="Reject submissions of workers a quality rule blocked, with its evidence.",
    )
    last_polled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "annotation_prolificstudy"
        verbose_name = "Prolific study"
        verbose_name_plural = "Prolific studies"
        constraints = [
            models.UniqueConstraint(fields=["study_id"], name="prolific_study_id_unique"),
        ]

    def __str__(self) -> str:
        return f"Prolific study {self.study_id}"
