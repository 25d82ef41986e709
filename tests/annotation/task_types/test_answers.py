"""The contract's helpers for reading answers."""

from annotation.task_types.base import NONE, choices_problem


def test_choices_problem_names_what_is_wrong_with_a_set_or_none_answer():
    def check(chosen):
        return choices_problem(chosen, ["a", "b"], required="pick", clash="alone", noun="option")

    assert check([]) == "pick"
    assert check([NONE, "a"]) == "alone"
    assert check(["a", "x", "y"]) == "Unknown option ids: x, y."
    assert check(["a", "z"]) == "Unknown option id: z."
    assert check([NONE]) == "" and check(["a", "b"]) == ""
