"""The argument corpus that pairwise items are built from: topics and their arguments
(UKPConvArg1's ``arguments.tsv``). Fields and constraints only; writes go through
``task_types.pairwise.corpus``."""

from django.db import models


class Topic(models.Model):
    """A debate prompt taken from one stance (UKPConvArg's unit for pairing arguments)."""

    external_id = models.CharField(max_length=200, unique=True)
    prompt = models.CharField(max_length=500)
    stance = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["external_id"]

    def __str__(self) -> str:
        return f"{self.prompt} — {self.stance}" if self.stance else self.prompt


class Argument(models.Model):
    """A short argumentative text written for one topic."""

    external_id = models.CharField(max_length=200, unique=True)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="arguments")
    text = models.TextField()
    author = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["topic_id", "external_id"]

    def __str__(self) -> str:
        return self.external_id

    @property
    def word_count(self) -> int:
        return len(self.text.split())
