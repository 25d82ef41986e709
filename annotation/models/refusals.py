"""Answers the server refused, kept with their assignment.

A refusal (an answer that breaks the task type's rules, such as a playback report that claims
more than the server saw) is evidence about the work: it is kept when it happens and copied into
the annotation once an answer is accepted. Fields and constraints only.
"""

from django.db import models


class RefusedAnswer(models.Model):
    assignment = models.ForeignKey("annotation.Assignment", on_delete=models.CASCADE, related_name="refusals")
    at = models.DateTimeField(help_text="When the server refused it.")
    errors = models.JSONField(help_text="The messages the worker got, by field.")

    class Meta:
        ordering = ["assignment", "at", "pk"]
        indexes = [models.Index(fields=["assignment", "at"], name="refusedanswer_assignment_at")]

    def __str__(self) -> str:
        return f"refused answer to assignment {self.assignment_id} at {self.at:%Y-%m-%d %H:%M:%S}"
