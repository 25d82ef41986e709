"""The argument corpus file (UKPConvArg's ``arguments.tsv``): its rows and their errors, and
values one database would take and the other refuse, refused alike on both with line and
field (the suite runs on SQLite and on PostgreSQL)."""

import pytest
from django.core.management import CommandError, call_command

from annotation.importers import ID_MAX_LENGTH, ImportFailed
from annotation.models import Item
from task_types.pairwise.arguments_file import (
    AUTHOR_MAX_LENGTH,
    PROMPT_MAX_LENGTH,
    STANCE_MAX_LENGTH,
    parse_arguments,
)
from task_types.pairwise.corpus import arguments_import, pairs_generate
from task_types.pairwise.models import Argument, Topic
from task_types.pairwise.tests.factories import TopicFactory
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db
NUL = "\x00"
ARG_HEADER = "arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"


def test_arguments_tsv():
    data = (
        b"arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
        b'a1\tt1\tUniforms?\tgood\tann\t"quoted ""text""\nover two lines"\n'
        b"a2\tt1\tUniforms?\tgood\t\t\n"
    )
    with pytest.raises(ImportFailed) as exc:
        parse_arguments(data)
    assert str(exc.value.errors[0]) == "line 4, field 'text': must not be empty"
    rows = parse_arguments(data.rsplit(b"a2", 1)[0])
    assert rows[0].text == 'quoted "text"\nover two lines' and rows[0].prompt == "Uniforms?"



def test_storage_limits_match_the_models():
    assert Argument._meta.get_field("external_id").max_length == ID_MAX_LENGTH
    assert Topic._meta.get_field("external_id").max_length == ID_MAX_LENGTH
    assert Topic._meta.get_field("prompt").max_length == PROMPT_MAX_LENGTH
    assert Topic._meta.get_field("stance").max_length == STANCE_MAX_LENGTH
    assert Argument._meta.get_field("author").max_length == AUTHOR_MAX_LENGTH


def test_argument_import_checks_text_and_column_lengths():
    rows = (ARG_HEADER + "a1\tt\tUniforms?\tGood\tx\tfine text\n"
            + f"a2\tt\tUniforms?\tGood\tx\tbad{NUL}text\n"
            + f"{'a' * 201}\tt\tUniforms?\tGood\tx\ttext\n"
            + f"a4\tt\t{'P' * 501}\tGood\tx\ttext\n"
            + f"a5\tt\tUniforms?\tGood\t{'y' * 201}\ttext\n")
    with pytest.raises(ImportFailed) as exc:
        parse_arguments(rows.encode())
    assert [str(e) for e in exc.value.errors] == [
        "line 3, field 'text': contains a NUL character (\\x00), which cannot be stored",
        "line 4, field 'arg_id': is 201 characters long; at most 200 fit",
        "line 5, field 'debate_title': is 501 characters long; at most 500 fit",
        "line 6, field 'author': is 201 characters long; at most 200 fit",
    ]


def test_argument_import_command_gives_a_clear_error(tmp_path):
    path = tmp_path / "arguments.tsv"
    path.write_text(ARG_HEADER + f"a1\t{'t' * 300}\tUniforms?\tGood\tx\ttext\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"line 2, field 'topic': is 300 characters long; at most 200 fit"):
        call_command("import_arguments", str(path))
    assert not Topic.objects.exists()


def test_generated_pair_ids_must_fit():
    topic = TopicFactory(external_id="long")
    arguments_import(rows=parse_arguments((ARG_HEADER + "".join(
        f"{c * 150}\tlong\tUniforms?\tGood\tx\targument {c} has words\n" for c in "ab")).encode()))
    with pytest.raises(ImportFailed, match=r"pair 1, field 'id': is 301 characters long; at most 200 fit"):
        pairs_generate(project=ProjectFactory(), topic=topic, seed=1)
    assert not Item.objects.exists()
