"""What the engine and the analysis read of quality control through ``annotation.quality_port``:
every read the port asks is answered by the module quality control registered, and the names
the port gives the standings are quality control's own."""

import inspect

import annotation.quality_port as quality_port
import quality.selectors.engine_reads as engine_reads
from annotation.models import Standing, TrainingRound

# The port's questions answered by other parts (see ``quality_port_register``).
OTHER_PARTS = {"worker_quality", "qualification_taken", "round_open", "round_finish", "round_count_unanswered",
               "training_pick", "draw", "check_score", "answer_rules_after_commit", "page_context",
               "page_feedback_keep", "page_feedback_take", "api_next", "api_feedback", "standing_activate"}


def test_every_read_the_port_asks_has_an_answer():
    own = {name for name, f in vars(quality_port).items()
           if inspect.isfunction(f) and f.__module__ == quality_port.__name__
           and not name.startswith("_") and not name.endswith("_register")}
    reads = own - OTHER_PARTS
    assert reads, "the port asks no read"
    assert sorted(name for name in reads if not callable(getattr(engine_reads, name, None))) == []


def test_the_port_names_the_standings_as_quality_control_does():
    named = {quality_port.QUALIFYING, quality_port.ACTIVE, quality_port.REVIEW, quality_port.BLOCKED,
             quality_port.SCREENED_OUT}
    assert named == set(Standing.values)
    assert set(quality_port.STOPPED) == {Standing.BLOCKED, Standing.SCREENED_OUT}
    assert quality_port.QUALIFICATION == TrainingRound.Kind.QUALIFICATION

