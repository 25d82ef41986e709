"""Records one database would take and the other refuse get one rule on both: a 400 (or an
import error) naming line and field, never a 500 and never a half-written import. The suite
runs on SQLite and on PostgreSQL, so each test below checks both."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import ID_MAX_LENGTH, ImportFailed, parse_items
from annotation.models import Annotation, Assignment, Item, WorkerProfile
from annotation.services.crowd_results import crowd_import
from annotation.task_types import get_task_type
from annotation.value_checks import value_problem
from task_types.pairwise.arguments_file import parse_arguments
from task_types.pairwise.corpus import arguments_import
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
PAIRWISE = get_task_type("pairwise")
COLUMNS = ["id", "topic", "prompt", "stance", "arg1_id", "arg1_text", "arg2_id", "arg2_text"]
NUL = "\x00"


def record(n=1, **over):
    values = {"id": f"p{n}", "topic": "t", "prompt": "Uniforms?", "stance": "good", "arg1_id": f"x{n}",
              "arg1_text": "first text", "arg2_id": f"y{n}", "arg2_text": "second text"}
    values.update(over)
    return values


def encode(records, fmt):
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        return ("\n".join([sep.join(COLUMNS)] + [sep.join(str(r[c]) for c in COLUMNS) for r in records]) + "\n").encode()
    if fmt == "json":
        return json.dumps(records).encode()
    return "\n".join(json.dumps(r) for r in records).encode()


def errors_of(data, fmt):
    with pytest.raises(ImportFailed) as exc:
        parse_items(data, fmt=fmt, task_type=PAIRWISE)
    return [str(e) for e in exc.value.errors]


def where(fmt, n):
    return f"record {n}" if fmt == "json" else f"line {n + 1 if fmt in ('csv', 'tsv') else n}"


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json", "jsonl"])
def test_nul_and_overlong_ids_name_line_and_field_in_every_format(fmt):
    records = [record(1), record(2, arg1_text=f"bad{NUL}text"), record(3, id="x" * (ID_MAX_LENGTH + 1)),
               record(4, id="", arg1_id="a" * 150, arg2_id="b" * 150), record(5)]
    assert errors_of(encode(records, fmt), fmt) == [
        f"{where(fmt, 2)}, field 'arg1_text': contains a NUL character (\\x00), which cannot be stored",
        f"{where(fmt, 3)}, field 'id': is 201 characters long; at most 200 fit",
        f"{where(fmt, 4)}, field 'id': is 301 characters long; at most 200 fit",
    ]


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_values_that_databases_store_differently(fmt):
    deep = "x"
    for _ in range(40):
        deep = [deep]
    records = [record(1, extra=2**64), record(2, arg2_text="\ud800 half a pair"), record(3, nested=deep),
               record(4, gold=-(2**63) - 1)]
    data = encode(records, fmt).replace(b'"extra": 18446744073709551616', b'"extra": 1e400')
    errors = errors_of(data, fmt)
    assert errors[0] == f"{where(fmt, 1)}, field 'extra': is not a finite number"
    assert errors[1] == (f"{where(fmt, 2)}, field 'arg2_text': contains an unpaired surrogate (such as \\ud800), "
                         "which is not valid Unicode")
    assert errors[2].startswith(f"{where(fmt, 3)}, field 'nested[0][0]") and errors[2].endswith("is nested more than 32 levels deep")
    assert errors[3] == (f"{where(fmt, 4)}, field 'gold': is a whole number beyond 64 bits (-2^63 to 2^63-1), "
                         "which databases store differently")


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_numbers_python_cannot_read_and_nesting_it_cannot_parse(fmt):
    lines = [json.dumps(record(1)), json.dumps(record(2)).replace('"p2"', "1" + "0" * 5000)]
    data = ("[" + ",\n".join(lines) + "]" if fmt == "json" else "\n".join(lines)).encode()
    assert errors_of(data, fmt) == ["line 2: holds a number with more than 4300 digits"]
    bomb = "[" * 100_000 + "]" * 100_000
    data = (f'[{json.dumps(record(1))},\n{bomb}]' if fmt == "json" else f"{json.dumps(record(1))}\n{bomb}").encode()
    errors = errors_of(data, fmt)
    assert errors == [("file" if fmt == "json" else "line 2") + ": not readable: the JSON is nested too deeply"]


def test_storage_limits_match_the_models():
    assert Item._meta.get_field("external_id").max_length == ID_MAX_LENGTH


def admin_api():
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    return api


def test_api_item_import_gives_400_and_writes_nothing():
    project = ProjectFactory()
    data = encode([record(1), record(2, prompt=f"why{NUL}")], "jsonl")
    response = admin_api().post(f"/api/projects/{project.slug}/items/import/",
                                {"file": SimpleUploadedFile("items.jsonl", data)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"line": 2, "field": "prompt", "message": "contains a NUL character (\\x00), which cannot be stored"}]
    assert not Item.objects.exists()


def test_admin_item_import_lists_the_error(client):
    project = ProjectFactory()
    client.force_login(UserFactory(role="admin", is_superuser=True))
    data = encode([record(1, id="z" * 250)], "csv")
    response = client.post(reverse("admin:annotation_project_import", args=[project.pk]),
                           {"file": SimpleUploadedFile("items.csv", data), "on_duplicate": "reject"})
    assert "line 2, field &#x27;id&#x27;: is 250 characters long; at most 200 fit" in response.content.decode()
    assert not Item.objects.exists()


def test_import_command_stops_with_the_error(tmp_path):
    project = ProjectFactory()
    path = tmp_path / "items.tsv"
    path.write_bytes(encode([record(1, stance=f"a{NUL}b")], "tsv"))
    with pytest.raises(CommandError, match=r"line 2, field 'stance': contains a NUL character"):
        call_command("import_items", project.slug, str(path))
    assert not Item.objects.exists()


ARG_HEADER = "arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"


CROWD_HEADER = "topic\tpair_id\targ1\targ2\tworker\tlabel\treason\tsubmitted_at\n"


@pytest.fixture
def corpus():
    arguments_import(rows=parse_arguments((ARG_HEADER + "x1\tt\tU?\tGood\ta\tone\nx2\tt\tU?\tGood\tb\ttwo\n").encode()))


def test_crowd_import_rows_name_line_and_field(corpus):
    project = ProjectFactory()
    rows = (CROWD_HEADER + "t\tx1_x2\tx1\tx2\tW1\ta1\tfine reason\t2016-01-31 16:53:19\n"
            + f"t\tx1_x2\tx1\tx2\tW2\ta1\tbad{NUL}reason\t2016-01-31 16:53:19\n"
            + f"t\t{'p' * 201}\tx1\tx2\tW3\ta2\treason\t2016-01-31 16:53:19\n"
            + "t\tx1_x2\tx1\tx2\tW4\ta2\treason\t9999-12-31 23:59:59\n")
    with pytest.raises(ImportFailed) as exc:
        crowd_import(project=project, data=rows.encode(), filename="results.tsv")
    assert [str(e) for e in exc.value.errors] == [
        "line 3, field 'reason': contains a NUL character (\\x00), which cannot be stored",
        "line 4, field 'pair_id': is 201 characters long; at most 200 fit",
        "line 5, field 'submitted_at': must lie between the years 1990 and 2999",
    ]
    assert not Annotation.objects.exists() and not WorkerProfile.objects.filter(external_id__isnull=False).exists()


def test_crowd_import_refuses_a_platform_name_that_does_not_fit(corpus):
    project = ProjectFactory()
    rows = CROWD_HEADER + "t\tx1_x2\tx1\tx2\tW1\ta1\tfine reason\t2016-01-31 16:53:19\n"
    response = admin_api().post(f"/api/projects/{project.slug}/crowd-results/import/",
                                {"file": SimpleUploadedFile("r.tsv", rows.encode()), "source": "s" * 41},
                                format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "source"
    assert not Annotation.objects.exists()


@pytest.fixture
def assignment():
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    api = APIClient()
    api.force_authenticate(worker)
    nxt = api.post(f"/api/projects/{project.slug}/assignments/next/").json()
    return api, nxt["assignment"]["id"]


def submit(api, pk, body):
    return api.post(f"/api/assignments/{pk}/submit/", json.dumps(body) if isinstance(body, dict) else body,
                    content_type="application/json")


def test_api_answer_with_nul_in_the_reason(assignment):
    api, pk = assignment
    response = submit(api, pk, answer(reason="A1 gives a concrete example\x00, A2 does not."))
    assert response.status_code == 400
    assert response.json() == {"reason": "contains a NUL character (\\x00), which cannot be stored"}
    assert not Annotation.objects.exists()


def test_api_answer_nested_too_deeply_or_with_huge_numbers(assignment):
    api, pk = assignment
    deep = {"label": "a1"}
    for _ in range(40):
        deep = {"inner": deep}
    response = submit(api, pk, {**answer(), "extra": deep})
    assert response.status_code == 400 and response.json()["extra"].endswith("is nested more than 32 levels deep")
    response = submit(api, pk, {**answer(), "client_elapsed_ms": 2**70})
    assert response.status_code == 400 and "beyond 64 bits" in response.json()["client_elapsed_ms"]
    huge = json.dumps(answer())[:-1] + ', "n": 1' + "0" * 5000 + "}"
    response = submit(api, pk, huge)
    assert response.status_code == 400 and "JSON parse error" in response.json()["detail"]
    response = submit(api, pk, '{"label": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert response.status_code == 400 and response.json()["detail"] == "JSON parse error - the document is nested too deeply."
    response = submit(api, pk, {**answer(), "label": 1})
    assert response.status_code == 400 and response.json()["label"] == "Must be text."
    assert not Annotation.objects.exists()
    assert submit(api, pk, answer()).status_code == 201  # the same assignment still takes a good answer


def test_api_bodies_that_are_not_objects_get_a_400_not_a_500(assignment):
    """A JSON array or number where the fields belong: the token and revision endpoints read
    it as an object and failed with a 500."""
    api, pk = assignment
    for body in ("[1, 2]", "3"):
        response = submit(api, pk, body)
        assert response.status_code == 400 and "as a JSON object" in response.json()["body"]
        token = APIClient().post("/api/token/", body, content_type="application/json")
        assert token.status_code == 400 and "as a JSON object" in token.json()["body"]
    assert submit(api, pk, answer()).status_code == 201
    revised = api.put(f"/api/assignments/{pk}/annotation/", "[1, 2]", content_type="application/json")
    assert revised.status_code == 400 and "as a JSON object" in revised.json()["body"]


def test_api_answer_with_an_absurd_client_time_uses_the_server_time(assignment):
    api, pk = assignment
    response = submit(api, pk, {**answer(), "client_elapsed_ms": "1e400"})
    assert response.status_code == 201 and 0 <= response.json()["seconds"] < 60


@pytest.fixture
def web_assignment(client):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    client.force_login(UserFactory())
    return project, client.get(reverse("annotate", args=[project.slug])).context["assignment"]


def test_web_form_refuses_a_reason_with_nul(client, web_assignment):
    project, a = web_assignment
    response = client.post(reverse("submit", args=[project.slug, a.pk]),
                           answer(reason="A1 gives a concrete example\x00 and A2 does not."), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and response.context["assignment"].pk == a.pk
    assert "contains a NUL character" in response.content.decode()
    assert not Annotation.objects.exists() and Assignment.objects.get().status == "assigned"


def test_web_form_keeps_the_answer_when_client_details_hold_nul(client, web_assignment):
    project, a = web_assignment
    session = client.session
    session["marketplace"] = {"STUDY_ID": "s\x00tudy", "PROLIFIC_PID": "abc"}
    session.save()
    response = client.post(reverse("submit", args=[project.slug, a.pk]),
                           {**answer(), "client_input": "key\x00board", "client_viewport": "390x844"})
    assert response.status_code == 302
    stored = Annotation.objects.get()
    assert stored.client["input"] == "keyboard" and stored.client["marketplace"]["STUDY_ID"] == "study"
    assert value_problem(stored.client) is None


def test_query_and_form_fields_with_nul_get_a_400_not_a_500(client):
    """Views that read request.GET or request.POST themselves: join codes, marketplace links,
    the token endpoint; on PostgreSQL each of these was a 500."""
    project = ProjectFactory(join_code="abc", external_entry=True, panel="prolific")
    client.raise_request_exception = False
    client.force_login(UserFactory())
    joined = client.post(reverse("join"), {"code": "a\x00bc"})
    assert joined.status_code == 400
    assert "The field &#x27;code&#x27; contains a NUL character" in joined.content.decode()
    started = client.get(reverse("start", args=[project.slug]), {"worker_id": "W1", "source": "x\x00y"})
    assert started.status_code == 400 and not WorkerProfile.objects.filter(external_id="W1").exists()
    token = APIClient().post("/api/token/", {"username": "a\x00", "password": "x"})
    assert token.status_code == 400 and token.json() == {"username": "contains a NUL character (\\x00), which cannot be stored"}
    token = APIClient().post("/api/token/", {"username": "a\x00", "password": "x"}, format="json")
    assert token.status_code == 400 and "NUL" in token.json()["username"]
    assert client.post(reverse("join"), {"code": "abc"}).status_code == 302  # the real code still works
