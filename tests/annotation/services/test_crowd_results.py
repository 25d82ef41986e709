"""Importing crowd results collected elsewhere: all or nothing, errors by line and field."""

import gzip

import pytest

from annotation.importers import ImportFailed
from annotation.models import Annotation, Assignment, Item, WorkerProfile
from annotation.services import assignment_next
from annotation.services.crowd_results import crowd_import, parse_column_spec
from task_types.pairwise.arguments_file import parse_arguments
from task_types.pairwise.corpus import arguments_import
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
ARGUMENTS = (
    "arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
    "x1\tuni_good\tUniforms?\tGood\ta\tUniforms are cheap.\n"
    "x2\tuni_good\tUniforms?\tGood\tb\tUniforms stop bullying.\n"
    "x3\tuni_good\tUniforms?\tGood\tc\tUniforms look smart.\n"
    "y1\tuni_bad\tUniforms?\tBad\td\tUniforms cost a lot.\n"
)
HEADER = "topic\tpair_id\targ1\targ2\tworker\thit\tassignment\tlabel\treason\taccepted_at\tsubmitted_at\tworker_stance\n"


def row(pair="x1_x2", worker="W1", label="a1", stance="", accepted="2016-01-31 16:53:19.0 UTC",
        submitted="2016-01-31 16:59:52.0 UTC", topic="uni_good"):
    a1, a2 = pair.split("_")
    return f"{topic}\t{pair}\t{a1}\t{a2}\t{worker}\tH1\tA-{worker}-{pair}\t{label}\tA1 is short and clear\t{accepted}\t{submitted}\t{stance}\n"


@pytest.fixture
def project():
    arguments_import(rows=parse_arguments(ARGUMENTS.encode()))
    return ProjectFactory(redundancy=3)


def test_results_become_items_workers_and_annotations(project):
    rows = [row(worker=f"W{i}", label=label) for i, label in enumerate(["a1", "a1", "a2", "equal"])]
    rows.append(row(pair="x3_x1", worker="W0", label="a2", stance="same"))
    data = gzip.compress((HEADER + "".join(rows)).encode())
    result = crowd_import(project=project, data=data, filename="assignments.tsv.gz")
    assert (result.annotations, result.items_created, result.workers_created) == (5, 2, 4)
    item = Item.objects.get(project=project, external_id="x1_x2")
    assert item.payload["arg1"] == {"id": "x1", "text": "Uniforms are cheap."} and item.payload["stance"] == "Good"
    assert (item.n_active, item.redundancy) == (4, 4)  # more answers than N: N grows for that item
    ann = Annotation.objects.get(assignment__item__external_id="x3_x1")
    assert ann.answer == {"label": "a2", "standpoint": "same"} and ann.seconds == 393.0
    assert ann.client["assignment"] == "A-W0-x3_x1" and ann.reason == "A1 is short and clear"
    first = Assignment.objects.get(item=item, worker__profile__external_id="W0")
    assert first.status == "submitted" and (first.submitted_at - first.assigned_at).total_seconds() == 393
    assert WorkerProfile.objects.get(external_id="W0").user.username == "mturk+W0"
    # The imported answers hold their slots: x1_x2 is full, x3_x1 has two left.
    assert assignment_next(project=project, worker=UserFactory()).assignment.item.external_id == "x3_x1"


def test_errors_name_line_and_field_and_nothing_is_written(project):
    rows = [row(), row(worker="W2", label="maybe"), row(worker="W3", submitted="yesterday"),
            row(worker="W1"), row(worker="W4", accepted="2016-02-01 00:00:00 UTC")]
    with pytest.raises(ImportFailed) as exc:
        crowd_import(project=project, data=(HEADER + "".join(rows)).encode(), filename="r.tsv")
    assert [str(e) for e in exc.value.errors] == [
        "line 3, field 'label': must be one of a1, a2, equal, got 'maybe'",
        "line 4, field 'submitted_at': not a time I can read: 'yesterday'",
        "line 5, field 'worker': 'W1' already answered 'x1_x2' on line 2",
        "line 6, field 'submitted_at': is before accepted_at",
    ]
    assert not Item.objects.exists() and not Annotation.objects.exists()


def test_unknown_arguments_and_wrong_topics_are_refused(project):
    with pytest.raises(ImportFailed, match="line 2, field 'arg2': unknown argument 'x9'"):
        crowd_import(project=project, data=(HEADER + row(pair="x1_x9")).encode(), filename="r.tsv")
    with pytest.raises(ImportFailed, match="line 2, field 'topic': argument 'x1' belongs to topic 'uni_good'"):
        crowd_import(project=project, data=(HEADER + row(topic="uni_bad")).encode(), filename="r.tsv")
    assert not Annotation.objects.exists()


def test_importing_the_same_file_twice_is_refused(project):
    data = (HEADER + row()).encode()
    crowd_import(project=project, data=data, filename="r.tsv")
    with pytest.raises(ImportFailed, match="line 2, field 'worker': 'W1' already has an assignment on 'x1_x2'"):
        crowd_import(project=project, data=data, filename="r.tsv")
    assert Annotation.objects.count() == 1


def test_mturk_batch_results_with_a_column_spec(project):
    csv_data = (
        b'"HITId","AssignmentId","WorkerId","AcceptTime","SubmitTime","Input.topic","Input.arg1","Input.arg2","Answer.choice","Answer.why"\n'
        b'"H9","AS1","A2XYZ","Sun Jan 31 08:53:19 PST 2016","Sun Jan 31 08:55:00 PST 2016","uni_good","x2","x3","A2","it has more detail"\n'
    )
    columns = parse_column_spec(spec="mturk,topic=Input.topic,arg1=Input.arg1,arg2=Input.arg2,label=Answer.choice,reason=Answer.why")
    result = crowd_import(project=project, data=csv_data, filename="Batch_1_batch_results.csv", columns=columns,
                          label_map=parse_column_spec(spec="A1=a1,A2=a2,Same=equal"))
    assert result.annotations == 1
    a = Assignment.objects.get()
    assert a.item.external_id == "x2_x3" and a.annotation.answer["label"] == "a2"
    assert a.assigned_at.isoformat() == "2016-01-31T16:53:19+00:00" and a.annotation.seconds == 101.0
    assert a.annotation.client["hit"] == "H9"
    with pytest.raises(ImportFailed, match="'label=' is not field=Column"):
        parse_column_spec(spec="label=")


def test_imported_workers_are_named_like_marketplace_arrivals_and_found_by_their_links(project):
    from annotation.models import Project
    from recruiting.services.marketplace import worker_from_marketplace

    # Someone holds the name the import would give: the import goes on under another name.
    UserFactory(username="mturk+W1")
    crowd_import(project=project, data=(HEADER + row(worker="W1") + row(worker="W2")).encode(), filename="r.tsv")
    w1 = WorkerProfile.objects.get(source="mturk", external_id="W1").user
    w2 = WorkerProfile.objects.get(source="mturk", external_id="W2").user
    assert w2.username == "mturk+W2" and w1.username.startswith("mturk+W1+")
    # The same worker arriving later through an MTurk link gets the imported account.
    Project.objects.filter(pk=project.pk).update(external_entry=True, panel="mturk")
    project.refresh_from_db()
    assert worker_from_marketplace(project=project, source="mturk", external_id="W2") == w2


def test_a_second_file_adds_answers_to_items_already_there(project):
    first = crowd_import(project=project, data=(HEADER + row(worker="W1")).encode(), filename="r.tsv")
    assert (first.items_created, first.items_existing, first.workers_created) == (1, 0, 1)
    more = [row(worker=w) for w in ("W1x", "W2", "W3")] + [row(pair="x3_x1", worker="W1")]
    second = crowd_import(project=project, data=(HEADER + "".join(more)).encode(), filename="r2.tsv")
    assert (second.annotations, second.items_created, second.items_existing) == (4, 1, 1)
    assert (second.workers_created, second.workers_existing) == (3, 1)
    old, new = Item.objects.get(external_id="x1_x2"), Item.objects.get(external_id="x3_x1")
    assert (old.n_active, old.redundancy) == (4, 4) and (new.n_active, new.redundancy) == (1, 3)
    assert new.position == old.position + 1
    pairs = set(Assignment.objects.values_list("item__external_id", "worker__profile__external_id"))
    assert pairs == {("x1_x2", "W1"), ("x1_x2", "W1x"), ("x1_x2", "W2"), ("x1_x2", "W3"), ("x3_x1", "W1")}
    assert all(a.annotation.client["imported_from"] in ("r.tsv", "r2.tsv") for a in Assignment.objects.all())
