"""What the engine and the analysis read of quality control through ``annotation.quality_port``:
every read the port asks is answered by the module quality control registered, and the names
the port gives the standings are quality control's own."""

import inspect
import re

import annotation.quality_port as quality_port
from annotation.models import Standing
from quality.models import TrainingRound, WorkerStanding


def test_every_question_the_port_asks_has_an_answer():
    """Each of the port's functions asks one part for one function by name (``_answer``): the
    module quality control registered for that part has it."""
    asked = {}
    for name, f in vars(quality_port).items():
        if inspect.isfunction(f) and f.__module__ == quality_port.__name__ and not name.startswith("_"):
            found = re.search(r'_answer\("(\w+)", "(\w+)"\)', inspect.getsource(f))
            if found:
                asked[name] = found.groups()
    assert {"excluded_worker_ids", "worker_quality", "gold_answers_import", "adjudicated_answers"} <= set(asked)
    assert sorted(name for name, (part, answer) in asked.items()
                  if not callable(getattr(quality_port._ANSWERS.get(part), answer, None))) == []


def test_the_port_names_the_standings_as_quality_control_does():
    assert WorkerStanding._meta.get_field("state").choices == Standing.choices
    assert set(quality_port.STOPPED) == {Standing.BLOCKED, Standing.SCREENED_OUT}
    assert quality_port.QUALIFICATION == TrainingRound.Kind.QUALIFICATION

