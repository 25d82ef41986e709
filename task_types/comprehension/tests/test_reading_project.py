"""The paper's design with two projects: every speech heard in a listening project, a subset read
in a reading project, joined by the listening project's report ("Reading project") into the same
figures as one project in both modes."""

from __future__ import annotations

import pytest

from analysis.models import AnalysisRun
from analysis.reports import ParamError
from analysis.services import analysis_run_create, analysis_run_execute
from task_types.comprehension.tests.factories import clip_row
from task_types.comprehension.tests.test_report import (
    SPEECHES,
    TASK,
    WHOLE,
    answer_all,
    make_project,
    run_report,
)
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
HEARD = ({"s1": ["a"], "s2": ["c"], "s3": []}, {"s1": ["a", "b"], "s2": ["c"], "s3": ["e"]})
READ = ({"s1": ["a"], "s2": ["c", "d"]}, {"s1": ["a", "b"], "s2": []})
# A speech of the reading project that the listening project does not have.
STRAY = ("s9", "m3", "con", "Nobody heard this one.", [("g", "a title nobody heard")])


def with_audio(project, mode):
    """Items imported for reading, then given audio and the mode (the report plays nothing)."""
    project.options = TASK.clean_options({"mode": mode})
    project.save(update_fields=["options"])
    clip_row(project, "speech.wav", duration=20.0)
    for item in project.items.all():
        item.payload["speech"]["audio"] = "speech.wav"
        item.save(update_fields=["payload"])
    return project


def variant(project, worker):
    return TASK.variant(options=TASK.clean_options(project.options), project_id=project.pk, worker_id=worker.pk)


def two_designs():
    """The same answers in one project in both modes, and in a listening project of every speech
    beside a reading project of two of them (plus a speech the listeners never had, and one
    listener's answer that the reading project's own both mode allowed)."""
    both = with_audio(make_project(), "both")
    listening = with_audio(make_project(), "listening")
    reading = with_audio(make_project(speeches=[*SPEECHES[:2], STRAY]), "both")
    users = [UserFactory() for _ in range(40)]
    listeners = [u for u in users if variant(both, u) == "listening"][:2]
    readers = [u for u in users if variant(both, u) == variant(reading, u) == "reading"][:2]
    heard_in_reading = next(u for u in users if variant(reading, u) == "listening" and u not in listeners)
    assert len(listeners) == len(readers) == 2
    for worker, answers in zip(listeners, HEARD, strict=True):
        answer_all(both, worker, answers, playback=WHOLE)
        answer_all(listening, worker, answers, playback=WHOLE)
    for worker, answers in zip(readers, READ, strict=True):
        answer_all(both, worker, answers)
        answer_all(reading, worker, {**answers, "s9": ["g"]})
    answer_all(reading, heard_in_reading, {"s1": ["b"], "s2": ["d"]}, playback=WHOLE)
    return both, listening, reading


def test_a_reading_project_gives_the_figures_of_one_project_in_both_modes():
    both, listening, reading = two_designs()
    one = run_report(both).result
    two = run_report(listening, reading_project=reading.slug).result
    assert set(two["modes"]) == {"listening", "reading"}
    assert two["reading_subset"]["n_speeches"] == two["modes"]["reading"]["n_speeches"] == 2
    assert two["modes"]["listening"]["n_speeches"] == 3
    for key in ("modes", "reading_subset", "comparison", "pairs"):
        assert two[key] == one[key], key
    assert two["comparison"]["n_speeches"] == 2 and two["comparison"]["n_questions"] == 4
    joined = two["reading_project"]
    assert joined["project"] == reading.slug and joined["speeches"] == 2
    assert joined["unmatched_items"] == 1 and joined["listening_answers_ignored"] == 2
    assert joined["reading_answers"] == 4
    assert one.get("reading_project") is None


def test_the_page_shows_the_three_columns_with_their_n_and_what_was_left_out(client):
    both, listening, reading = two_designs()
    run_report(listening, reading_project=reading.slug)
    client.force_login(UserFactory(role="admin"))
    text = client.get(f"/projects/{listening.slug}/reports/comprehension/").content.decode()
    for key, n in (("listening", 3), ("reading_subset", 2), ("reading", 2)):
        cell = text.split(f'data-testid="column-{key}"', 1)[1].split("</th>", 1)[0]
        assert f"N = {n} speeches" in cell, (key, cell)
    assert text.index('column-listening"') < text.index('column-reading_subset"') < text.index('column-reading"')
    note = text.split('data-testid="reading-project"', 1)[1].split("</p>", 1)[0]
    assert reading.slug in note and "2 speeches" in note and "1 item" in note and "s9" in note and "2 listening answers" in note
    assert "Listening vs reading" in text
    # The settings offer the other comprehension projects by name, chosen as the run's parameter.
    select = text.split('name="param_reading_project"', 1)[1].split("</select>", 1)[0]
    assert f'value="{reading.slug}" selected' in select and f'value="{both.slug}"' in select
    assert f'value="{listening.slug}"' not in select


def test_the_reading_project_must_be_another_existing_comprehension_project():
    listening = make_project()
    with pytest.raises(ParamError, match="reading_project.*no-such-project") as caught:
        analysis_run_create(project=listening, kind="comprehension", params={"reading_project": "no-such-project"})
    assert caught.value.name == "reading_project"
    other_type = ProjectFactory()
    assert other_type.task_type != "comprehension"
    with pytest.raises(ParamError, match=f"reading_project.*{other_type.slug}.*{other_type.task_type}"):
        analysis_run_create(project=listening, kind="comprehension", params={"reading_project": other_type.slug})
    with pytest.raises(ParamError, match="reading_project.*this project"):
        analysis_run_create(project=listening, kind="comprehension", params={"reading_project": listening.slug})
    assert not AnalysisRun.objects.exists()
    # Empty: none.
    assert run_report(listening, reading_project="").result.get("reading_project") is None


def test_a_user_who_may_not_see_projects_cannot_name_one():
    listening, reading = make_project(), make_project()
    with pytest.raises(ParamError, match="reading_project.*may not see other projects"):
        analysis_run_create(project=listening, kind="comprehension", params={"reading_project": reading.slug},
                            user=UserFactory(role="annotator"))


def test_a_reading_project_deleted_after_the_run_was_queued_fails_the_run_naming_the_parameter():
    listening, reading = make_project(), make_project()
    run = analysis_run_create(project=listening, kind="comprehension",
                              params={"reading_project": reading.slug}, enqueue=False)
    reading.delete()
    run = analysis_run_execute(run_id=run.pk)
    assert run.status == AnalysisRun.Status.FAILED
    assert "reading_project" in run.error and reading.slug in run.error
