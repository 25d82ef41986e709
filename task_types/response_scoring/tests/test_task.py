"""Rubric scoring of spoken responses: one score 1-4, what each rater receives, import errors
that name the file, line and field, and the SAMPLE demo set."""

from __future__ import annotations

import shutil

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import QueryDict

from annotation.importers import ImportFailed
from annotation.models import Item
from annotation.task_types.base import AnswerContext, AnswerInvalid, DemoContext, FieldError
from task_types.response_scoring.corpus import folder_records
from task_types.response_scoring.services import responses_import
from task_types.response_scoring.tests.factories import SAMPLE, TASK, record
from tests.factories import ProjectFactory, UserFactory

READING = AnswerContext(options=TASK.clean_options({}), variant="reading")
PAYLOAD = TASK.clean_item(record()).payload


def form(**fields) -> QueryDict:
    q = QueryDict(mutable=True)
    for name, values in fields.items():
        for v in values if isinstance(values, list) else [values]:
            q.appendlist(name, v)
    return q


@pytest.mark.parametrize("score", ["1", "2", "3", "4"])
def test_one_score_from_1_to_4_is_taken(score):
    clean = TASK.clean_answer(form(score=score, comment=" fine "), payload=PAYLOAD, context=READING)
    assert clean.answer == {"score": score, "comment": "fine", "mode": "reading"}
    assert TASK.long_rows(payload=PAYLOAD, answer=clean.answer) == [{"label": score, "mode": "reading"}]


@pytest.mark.parametrize("data", [form(score="5"), form(score="0"), form(comment="no score"), form(score=["3", "4"]),
                                  {"score": ["3"]}, {"score": ""}])
def test_anything_but_exactly_one_score_from_1_to_4_is_refused(data):
    with pytest.raises(AnswerInvalid) as exc:
        TASK.clean_answer(data, payload=PAYLOAD, context=READING)
    assert set(exc.value.errors) == {"score"}


def test_a_rater_never_receives_the_references_and_a_listener_no_transcript():
    options = TASK.clean_options({"transcript": "asr"})
    reader = TASK.worker_payload(PAYLOAD, options=options, variant="reading")
    assert "references" not in reader and reader["response"]["shown"] == "bees carry pollen"
    assert "transcript" not in reader["response"] and [r[0] for r in reader["rubric"]] == ["4", "3", "2", "1"]
    listener = TASK.worker_payload({**PAYLOAD, "response": {**PAYLOAD["response"], "audio": "r1.mp3"}},
                                   options=TASK.clean_options({"presentation": "listening"}), variant="listening")
    assert listener["response"]["audio"] == "r1.mp3" and "Bees" not in str(listener) and "bees" not in str(listener["response"])


@pytest.mark.parametrize(("change", "field"), [({"prompt_type": "essay"}, "prompt_type"), ({"response_id": ""}, "response_id"),
                                               ({"references": "[1, 2]"}, "references[1]"),
                                               ({"asr_transcript": "", "transcript": ""}, "audio")])
def test_a_bad_record_names_its_field(change, field):
    with pytest.raises(FieldError) as exc:
        TASK.clean_item(record(**change))
    assert exc.value.field == field


def copy_sample(tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(SAMPLE, folder)
    return folder


def test_folder_errors_name_the_file_the_line_and_the_field_and_nothing_is_written(tmp_path):
    folder = copy_sample(tmp_path)
    lines = (folder / "responses.csv").read_text().splitlines()
    lines[3] = lines[3].replace("SAMPLE-P1", "SAMPLE-P9", 1)  # line 4 of the file
    (folder / "responses.csv").write_text("\n".join(lines) + "\n")
    prompts = (folder / "prompts.csv").read_text().replace(",summary,", ",lecture,", 1)
    (folder / "prompts.csv").write_text(prompts)
    with pytest.raises(ImportFailed) as exc:
        folder_records(folder)
    shown = str(exc.value)
    assert "prompts.csv line 3, field 'type': must be one of narration, summary, got 'lecture'" in shown
    assert "responses.csv line 4, field 'prompt_id': no prompt 'SAMPLE-P9' in prompts.csv" in shown


@pytest.mark.django_db
def test_the_command_imports_the_sample_all_or_nothing(tmp_path, capsys):
    project = ProjectFactory(task_type="response_scoring", options=TASK.clean_options({}))
    folder = copy_sample(tmp_path)
    (folder / "responses.csv").write_text((folder / "responses.csv").read_text() + "SAMPLE-R01,SAMPLE-P1,x,,a,b\n")
    with pytest.raises(CommandError) as exc:
        call_command("import_responses", project.slug, str(folder))
    assert "responses.csv line 14, field 'response_id': response 'SAMPLE-R01' appears twice" in str(exc.value)
    assert not Item.objects.filter(project=project).exists()
    call_command("import_responses", project.slug, str(SAMPLE))
    assert "12 responses and 0 audio files imported" in capsys.readouterr().out
    item = Item.objects.get(project=project, external_id="SAMPLE-R04")
    assert item.payload["prompt"]["type"] == "narration" and len(item.payload["references"]) == 4
    assert item.payload["references"][0]["id"] == "R1"


@pytest.mark.django_db
def test_the_demo_is_the_labelled_sample_set_and_loads_once(tmp_path):
    owner, rater = UserFactory(), UserFactory()
    ctx = DemoContext(data_dir=tmp_path, owner=owner, annotators=[rater], log=lambda line: None)
    TASK.demo(ctx)
    TASK.demo(ctx)
    items = Item.objects.filter(project__slug="response-scoring-demo")
    assert items.count() == 12 and "SAMPLE" in items.first().project.name
    assert all(i.payload["prompt"]["text"].startswith("SAMPLE") for i in items)
    assert {len(i.payload["references"]) for i in items} == {4}
    assert "made up for the demo" in (SAMPLE / "README.md").read_text().lower()


@pytest.mark.django_db
def test_a_listening_project_refuses_responses_without_audio():
    project = ProjectFactory(task_type="response_scoring", options=TASK.clean_options({"presentation": "listening"}))
    with pytest.raises(ImportFailed) as exc:
        responses_import(project=project, folder=SAMPLE)
    assert "field 'audio'" in str(exc.value)
