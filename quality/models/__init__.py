"""Quality control's records: gold answers, the project's policy, workers' standings, training
rounds and check results, rules and their decisions, adjudications and flags.

Their tables keep the names they were made with in the engine app (``annotation_…``).
"""

from annotation.models import Standing
from quality.models.adjudication import Adjudication
from quality.models.flags import ItemFlag
from quality.models.gold import GoldAnswer
from quality.models.policy import QualityPolicy
from quality.models.rules import QualityRule, RuleDecision, RuleState
from quality.models.standing import WorkerStanding
from quality.models.training import CheckResult, TrainingRound

__all__ = ["Adjudication", "CheckResult", "GoldAnswer", "ItemFlag", "QualityPolicy", "QualityRule", "RuleDecision", "RuleState", "Standing", "TrainingRound", "WorkerStanding"]
