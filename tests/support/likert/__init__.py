"""A toy task type (a 1–5 Likert rating of a statement) that lives in one folder: the proof that a
new type is this folder plus one line in INSTALLED_APPS (see ``settings.py``). The contract test
runs it through the whole workflow in a run of its own (``tests/annotation/task_types/test_new_type.py``)."""
