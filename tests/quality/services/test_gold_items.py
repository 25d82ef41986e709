"""Storing gold questions and training items from item files (the web admin, the API and
import_items), updating them, and promoting unanimously answered real items to gold questions."""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.importers import ImportFailed
from annotation.models import (
    CHECK_ITEM_REDUNDANCY,
    Annotation,
    Assignment,
    AuditEntry,
    Item,
    ItemKind,
    Purpose,
)
from annotation.services import items_import_file, items_remove_unused, project_set_redundancy
from annotation.services.errors import WorkflowError
from annotation.task_types import get_task_type
from quality.models import GoldAnswer
from quality.services.gold_items import items_promote_gold
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Assignment.Status
PAIRWISE = get_task_type("pairwise")


def pairs(**first) -> list[dict]:
    rows = [dict(r) for r in PAIRWISE.example().records]
    rows[0].update(first)
    return rows


def as_json(rows) -> bytes:
    return json.dumps(rows).encode()


def answered(item, label, *, purpose=Purpose.TASK, status=Status.SUBMITTED, worker=None):
    a = AssignmentFactory(item=item, worker=worker or UserFactory(), status=status, purpose=purpose,
                          submitted_at=timezone.now() if status != Status.ASSIGNED else None)
    if status != Status.ASSIGNED:
        Annotation.objects.create(assignment=a, answer={"label": label, "standpoint": "none", "reason": "x" * 40})
    return a


def test_gold_and_training_items_are_stored_with_their_answer_and_the_check_n():
    project = ProjectFactory(redundancy=3)
    rows = pairs(item_kind="gold", gold_answer={"label": "a1", "accept": [{"label": "equal"}]},
                 gold_explanation="A1 names a cost.")
    rows.append({**rows[1], "id": "t1", "item_kind": "training", "gold_answer": {"label": "a2"}})
    result = items_import_file(project=project, data=as_json(rows), filename="items.json")
    assert (result.created, result.updated, result.unchanged) == (3, 0, 0)
    kinds = {i.external_id: (i.kind, i.redundancy) for i in Item.objects.filter(project=project)}
    assert kinds == {"u1_u2": (ItemKind.GOLD, CHECK_ITEM_REDUNDANCY), "u2_u3": (ItemKind.REAL, 3),
                     "t1": (ItemKind.TRAINING, CHECK_ITEM_REDUNDANCY)}
    gold = GoldAnswer.objects.get(item__external_id="u1_u2")
    assert (gold.answer, gold.accept, gold.explanation, gold.source) == (
        {"label": "a1"}, [{"label": "equal"}], "A1 names a cost.", GoldAnswer.Source.IMPORTED)
    assert GoldAnswer.objects.get(item__external_id="t1").answer == {"label": "a2"}
    assert not GoldAnswer.objects.filter(item__external_id="u2_u3").exists()


def test_a_refused_file_writes_no_item_and_no_answer():
    project = ProjectFactory()
    rows = pairs(item_kind="gold", gold_answer={"label": "a1"})
    rows[1].update(item_kind="gold", gold_answer={"label": "nope"})
    with pytest.raises(ImportFailed) as exc:
        items_import_file(project=project, data=as_json(rows), filename="items.json")
    assert [(e.line, e.field) for e in exc.value.errors] == [(2, "gold_answer.label")]
    assert not Item.objects.exists() and not GoldAnswer.objects.exists()


def test_update_changes_the_answer_and_the_kind_of_an_unanswered_item():
    project = ProjectFactory(redundancy=3)
    items_import_file(project=project, data=as_json(pairs(item_kind="gold", gold_answer={"label": "a1"})),
                      filename="items.json")
    again = items_import_file(project=project, data=as_json(pairs(item_kind="gold", gold_answer={"label": "a1"})),
                              filename="items.json", on_duplicate="update")
    assert (again.updated, again.unchanged) == (0, 2)
    changed = items_import_file(project=project, filename="items.json", on_duplicate="update", data=as_json(
        pairs(item_kind="training", gold_answer={"label": "a2"}, gold_explanation="Tie? No.")))
    assert (changed.updated, changed.unchanged) == (1, 1)
    item = Item.objects.get(external_id="u1_u2")
    assert (item.kind, item.redundancy) == (ItemKind.TRAINING, CHECK_ITEM_REDUNDANCY)
    assert (item.gold_answer.answer, item.gold_answer.explanation) == ({"label": "a2"}, "Tie? No.")
    items_import_file(project=project, data=as_json(pairs()), filename="items.json", on_duplicate="update")
    item.refresh_from_db()
    assert (item.kind, item.redundancy) == (ItemKind.REAL, 3)
    assert not GoldAnswer.objects.exists()
    made_gold = items_import_file(project=project, filename="items.json", on_duplicate="update",
                                  data=as_json(pairs(item_kind="gold", gold_answer={"label": "equal"})))
    assert made_gold.updated == 1 and Item.objects.get(external_id="u1_u2").kind == ItemKind.GOLD


def test_update_never_makes_data_a_check_item_nor_an_answered_check_item_real():
    project = ProjectFactory()
    items_import_file(project=project, filename="items.json", data=as_json(pairs()))
    real = Item.objects.get(external_id="u1_u2")
    answered(real, "a1")
    with pytest.raises(ImportFailed) as exc:
        items_import_file(project=project, filename="items.json", on_duplicate="update",
                          data=as_json(pairs(item_kind="gold", gold_answer={"label": "a1"})))
    (error,) = exc.value.errors
    assert (error.line, error.field) == (1, "item_kind") and "promote it" in error.message
    other = Item.objects.get(external_id="u2_u3")
    rows = pairs()
    rows[1].update(item_kind="gold", gold_answer={"label": "a2"})
    items_import_file(project=project, filename="items.json", on_duplicate="update", data=as_json(rows))
    answered(Item.objects.get(pk=other.pk), "a2", purpose=Purpose.GOLD)
    with pytest.raises(ImportFailed) as exc:
        items_import_file(project=project, filename="items.json", on_duplicate="update", data=as_json(pairs()))
    assert [(e.line, e.field) for e in exc.value.errors] == [(2, "item_kind")]
    assert Item.objects.get(pk=other.pk).kind == ItemKind.GOLD
    rows[1].update(gold_answer={"label": "equal"})  # its known answer may still change
    assert items_import_file(project=project, filename="items.json", on_duplicate="update",
                             data=as_json(rows)).updated == 1
    assert GoldAnswer.objects.get(item=other).answer == {"label": "equal"}


def test_a_withdrawn_item_stays_withdrawn():
    project = ProjectFactory()
    items_import_file(project=project, filename="items.json", data=as_json(pairs()))
    Item.objects.filter(external_id="u1_u2").update(kind=ItemKind.WITHDRAWN)
    assert items_import_file(project=project, filename="items.json", on_duplicate="update",
                             data=as_json(pairs())).unchanged == 2
    with pytest.raises(ImportFailed) as exc:
        items_import_file(project=project, filename="items.json", on_duplicate="update",
                          data=as_json(pairs(item_kind="gold", gold_answer={"label": "a1"})))
    assert [(e.line, e.field) for e in exc.value.errors] == [(1, "item_kind")]
    assert Item.objects.get(external_id="u1_u2").kind == ItemKind.WITHDRAWN


def test_the_api_and_the_command_take_the_columns():
    project = ProjectFactory()
    client = APIClient()
    client.force_authenticate(UserFactory(role="admin"))
    data = as_json(pairs(item_kind="gold", gold_answer={"label": "a1"}))
    r = client.post(f"/api/projects/{project.slug}/items/import/",
                    {"file": SimpleUploadedFile("items.json", data)}, format="multipart")
    assert r.status_code == 201 and r.json()["created"] == 2
    assert Item.objects.get(external_id="u1_u2").kind == ItemKind.GOLD
    listed = client.get(f"/api/projects/{project.slug}/items/").json()["results"]
    assert {i["external_id"]: i["kind"] for i in listed} == {"u1_u2": "gold", "u2_u3": "real"}
    bad = as_json(pairs(item_kind="gold"))
    r = client.post(f"/api/projects/{project.slug}/items/import/",
                    {"file": SimpleUploadedFile("items.json", bad), "on_duplicate": "update"}, format="multipart")
    assert r.status_code == 400
    assert r.json()["errors"] == [{"record": 1, "field": "gold_answer", "message": "is required for a gold item"}]


def test_import_items_command_takes_the_columns(tmp_path):
    project = ProjectFactory()
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in pairs(item_kind="training", gold_answer={"label": "a2"})))
    call_command("import_items", project.slug, str(path), stdout=io.StringIO(), stderr=io.StringIO())
    assert Item.objects.get(external_id="u1_u2").kind == ItemKind.TRAINING
    assert GoldAnswer.objects.get(item__external_id="u1_u2").answer == {"label": "a2"}


def test_redundancy_changes_and_rebuilds_leave_check_items_alone():
    project = ProjectFactory(redundancy=3)
    real = ItemFactory(project=project, external_id="r")
    gold = ItemFactory(project=project, external_id="g", kind=ItemKind.GOLD, redundancy=CHECK_ITEM_REDUNDANCY)
    training = ItemFactory(project=project, external_id="t", kind=ItemKind.TRAINING, redundancy=CHECK_ITEM_REDUNDANCY)
    project_set_redundancy(project=project, redundancy=5)
    assert {i.external_id: i.redundancy for i in Item.objects.filter(pk__in=[real.pk, gold.pk, training.pk])} == {
        "r": 5, "g": CHECK_ITEM_REDUNDANCY, "t": CHECK_ITEM_REDUNDANCY}
    assert items_remove_unused(project=project, keep=[]) == (1, 0)
    assert set(Item.objects.values_list("external_id", flat=True)) == {"g", "t"}


def test_promotion_takes_unanimous_items_with_enough_answers_only():
    project = ProjectFactory(redundancy=3)
    unanimous, split, few = (ItemFactory(project=project, external_id=n) for n in ("u", "s", "f"))
    open_one = ItemFactory(project=project, external_id="o", redundancy=4)
    for label in ("a1", "a1", "a1"):
        answered(unanimous, label)
    for label in ("a1", "a1", "a2"):
        answered(split, label)
    answered(few, "equal")
    answered(few, "equal")
    answered(few, "a2", status=Status.REJECTED)  # not counted: neither a vote nor a dissent
    for label in ("a2", "a2", "a2"):
        answered(open_one, label)
    answered(open_one, "a1", purpose=Purpose.GOLD)  # not a task answer: no dissent either
    admin = UserFactory(role="admin")
    assert items_promote_gold(project=project, actor=admin, min_answers=3) == 2
    promoted = {i.external_id: i for i in Item.objects.filter(kind=ItemKind.GOLD)}
    assert set(promoted) == {"u", "o"}
    gold = GoldAnswer.objects.get(item__external_id="u")
    assert (gold.answer, gold.source, gold.created_by) == ({"label": "a1"}, GoldAnswer.Source.PROMOTED, admin)
    assert gold.evidence["answers"] == 3 and {v["label"] for v in gold.evidence["votes"]} == {"a1"}
    assert GoldAnswer.objects.get(item__external_id="o").answer == {"label": "a2"}
    entry = AuditEntry.objects.get(action="promote_gold")
    assert (entry.actor, entry.project, entry.details["promoted"], entry.details["items"]) == (admin, project, 2, ["u", "o"])
    assert items_promote_gold(project=project, actor=admin, min_answers=2) == 1  # now "f" qualifies
    assert Item.objects.get(external_id="s").kind == ItemKind.REAL


def test_promotion_of_set_answers_needs_the_same_set():
    project = ProjectFactory(task_type="key_points", redundancy=2)
    task = get_task_type("key_points")
    payload = task.clean_item(task.example().records[0]).payload
    same, differs = (ItemFactory(project=project, external_id=n, payload=payload) for n in ("same", "differs"))
    for item, sets in ((same, (["kp_4_1", "kp_4_3"], ["kp_4_3", "kp_4_1"])), (differs, (["kp_4_1"], ["kp_4_3"]))):
        for chosen in sets:
            a = AssignmentFactory(item=item, worker=UserFactory(), status=Status.SUBMITTED, submitted_at=timezone.now())
            Annotation.objects.create(assignment=a, answer={"key_points": chosen})
    assert items_promote_gold(project=project, actor=None, min_answers=2, limit=5) == 1
    assert GoldAnswer.objects.get().answer == {"key_points": ["kp_4_1", "kp_4_3"]}


def test_promotion_limit_and_bad_arguments():
    project = ProjectFactory(redundancy=1)
    items = ItemFactory.create_batch(3, project=project)
    for item in items:
        answered(item, "a1")
    with pytest.raises(WorkflowError):
        items_promote_gold(project=project, actor=None, min_answers=0)
    with pytest.raises(WorkflowError, match="agreement analysis"):
        items_promote_gold(project=project, actor=None, min_answers=1, posterior=0.9)
    assert not Item.objects.filter(kind=ItemKind.GOLD).exists()
    assert items_promote_gold(project=project, actor=None, min_answers=1, limit=2) == 2
    assert list(Item.objects.filter(kind=ItemKind.GOLD).order_by("position").values_list("pk", flat=True)) == [
        items[0].pk, items[1].pk]
    posteriors = {items[2].external_id: 0.5}
    assert items_promote_gold(project=project, actor=None, min_answers=1, posterior=0.9, posteriors=posteriors) == 0
    posteriors[items[2].external_id] = 0.95
    assert items_promote_gold(project=project, actor=None, min_answers=1, posterior=0.9, posteriors=posteriors) == 1
    assert GoldAnswer.objects.get(item=items[2]).evidence["posterior"] == 0.95


def test_promotion_leaves_another_project_alone():
    project, other = ProjectFactory(redundancy=1), ProjectFactory(redundancy=1)
    mine, theirs = ItemFactory(project=project), ItemFactory(project=other)
    answered(mine, "a1")
    answered(theirs, "a1")
    assert items_promote_gold(project=project, actor=None, min_answers=1) == 1
    assert Item.objects.get(pk=theirs.pk).kind == ItemKind.REAL


def test_promotion_reads_the_posteriors_of_the_last_agreement_run():
    from analysis.models import AnalysisRun

    project = ProjectFactory(redundancy=1)
    items = ItemFactory.create_batch(3, project=project)
    for item in items:
        answered(item, "a1")
    # The run lists only the items under its bar: item 0 is unsure, items 1 and 2 above 0.9.
    AnalysisRun.objects.create(project=project, kind="agreement", status="done",
                               result={"posterior": {"below": 0.9, "items": {items[0].external_id: 0.55}}})
    with pytest.raises(WorkflowError, match="at most 0.9"):
        items_promote_gold(project=project, actor=None, min_answers=1, posterior=0.95)
    assert items_promote_gold(project=project, actor=None, min_answers=1, posterior=0.8) == 2
    assert set(Item.objects.filter(kind=ItemKind.GOLD).values_list("pk", flat=True)) == {items[1].pk, items[2].pk}


def coverage(warnings: list[str]) -> list[str]:
    """The gold-coverage warnings of an import (``pairs`` gives its real items a pairwise
    ``gold`` value, which has a warning of its own)."""
    return [w for w in warnings if "carry a `gold` value" not in w and "carries a `gold` value" not in w]


def test_an_import_stores_each_items_group_and_warns_of_groups_without_gold(client):
    from tests.quality_factories import quality_policy

    project = ProjectFactory(redundancy=3)
    quality_policy(project, gold_rate=0.1)
    rows = pairs(item_kind="gold", gold_answer={"label": "a1"})
    rows += [{**rows[1], "id": f"w{n}", "topic": "wind_farms", "arg1_id": f"w{n}a", "arg2_id": f"w{n}b"}
             for n in range(3)]
    result = items_import_file(project=project, data=as_json(rows), filename="items.json")
    groups = dict(Item.objects.filter(project=project).values_list("external_id", "group"))
    assert groups == {"u1_u2": "uniform_bad", "u2_u3": "uniform_bad", "w0": "wind_farms", "w1": "wind_farms",
                      "w2": "wind_farms"}
    # A warning, not a refusal: the items are in, and the group without gold is named.
    assert result.created == 5
    [warning] = coverage(result.warnings)
    assert "1 group of real items has no gold question: 'wind_farms'" in warning
    # Once the group has a gold question, the warning is gone.
    more = [{**rows[1], "id": "wg", "topic": "wind_farms", "arg1_id": "x1", "arg2_id": "x2", "item_kind": "gold",
             "gold_answer": {"label": "a2"}}]
    assert coverage(items_import_file(project=project, data=as_json(more), filename="more.json").warnings) == []


def test_an_import_warns_when_the_gold_questions_are_too_few_for_the_rate():
    from tests.quality_factories import quality_policy

    project = ProjectFactory(redundancy=3)
    quality_policy(project, gold_rate=0.5)
    rows = pairs(item_kind="gold", gold_answer={"label": "a1"})
    rows += [{**rows[1], "id": f"r{n}", "arg1_id": f"r{n}a", "arg2_id": f"r{n}b"} for n in range(4)]
    warnings = coverage(items_import_file(project=project, data=as_json(rows), filename="items.json").warnings)
    # Five real items at one half: a worker taking them all is due five gold questions, and
    # the project has one.
    assert warnings == ["1 gold question for a gold rate of 50%: a worker who takes every item they may is due "
                        "about 5. Each gold question is served to a worker once; once they have had all of them, "
                        "they get real items only, below the rate."]


def test_the_import_page_and_the_import_command_show_the_warning(admin_client, tmp_path, capsys):
    from tests.quality_factories import quality_policy

    project = ProjectFactory(redundancy=3)
    quality_policy(project, gold_rate=0.1)
    rows = pairs(item_kind="gold", gold_answer={"label": "a1"})
    rows.append({**rows[1], "id": "w0", "topic": "wind_farms", "arg1_id": "w0a", "arg2_id": "w0b"})
    path = tmp_path / "items.json"
    path.write_bytes(as_json(rows))
    call_command("import_items", project.slug, str(path))
    assert "Warning: 1 group of real items has no gold question: 'wind_farms'" in capsys.readouterr().err
    again = [{**rows[-1], "id": "w1", "arg1_id": "w1a", "arg2_id": "w1b"}]
    upload = SimpleUploadedFile("more.json", as_json(again), content_type="application/json")
    page = admin_client.post(reverse("admin:annotation_project_import", args=[project.pk]),
                             {"file": upload, "on_duplicate": "reject"}, follow=True)
    assert "no gold question: &#x27;wind_farms&#x27;" in page.content.decode()
