"""What an item is served as (``ItemKind``) and what an assignment was handed out as
(``Purpose``): the engine serves and counts by them; quality control's records live in
``quality.models``."""

from django.db import models


class ItemKind(models.TextChoices):
    """What an item is served as. Gold questions are mixed in among real items at the project's
    rate; training items are served only in training rounds (the qualification phase and
    re-calibration); a withdrawn item (flagged as broken) is served to nobody and its answers
    leave the data."""

    REAL = "real", "Real item"
    GOLD = "gold", "Gold question"
    TRAINING = "training", "Training item"
    WITHDRAWN = "withdrawn", "Withdrawn"


class Purpose(models.TextChoices):
    """What an assignment was handed out as, fixed when it is opened: only ``task`` answers are
    annotations of their item (agreement, MACE, exports); ``gold`` and ``training`` answers are
    scored for the worker. An item promoted to gold keeps its earlier answers as data."""

    TASK = "task", "Task"
    GOLD = "gold", "Gold question"
    TRAINING = "training", "Training"



class Standing(models.TextChoices):
    """A worker's standing in a project (``quality.models.WorkerStanding``): the engine serves by
    it (a blocked or screened-out worker gets no item, one under review none while the project
    pauses work), quality control decides it."""

    QUALIFYING = "qualifying", "Qualifying"
    ACTIVE = "active", "Active"
    REVIEW = "review", "To review"
    BLOCKED = "blocked", "Blocked"
    SCREENED_OUT = "screened_out", "Screened out"


# A gold or training item is answered by any number of workers (never twice by one): its N is
# the largest a small integer column holds on every database.
CHECK_ITEM_REDUNDANCY = 32767
