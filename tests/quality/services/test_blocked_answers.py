"""What a block does to the data: a blocked worker's answers leave the export, the long frame
(so agreement and MACE), the adjudication and flag queues and gold promotion at once, come back
on unblock, and each move is in the audit log with its counts; each item they answered is opened
for one more answer, so that it still gets N distinct annotators whose answers are data."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from analysis.frames import annotation_frame
from analysis.methods.agreement import krippendorff_alpha
from annotation.exports import EXCLUDED_HEADER, annotation_rows
from annotation.models import Assignment, AuditEntry, Item, Purpose, Standing
from annotation.selectors.staff import open_flag_count
from annotation.services import assignment_next
from annotation.services.items import project_set_redundancy
from annotation.services.review import worker_work_reject
from quality.models import CheckResult, ItemFlag
from quality.selectors.adjudication import contested_items, item_answers
from quality.selectors.flags import flagged_items
from quality.selectors.gold_candidates import unanimous_items
from quality.services.settings import quality_policy_update
from quality.services.standing import standing_set
from tests.annotation.quality_helpers import answered, gold_item
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import quality_policy

pytestmark = pytest.mark.django_db
# Two honest workers agree on every item; the cheater always says the opposite.
HONEST = ["a1", "a1", "a2", "a2"]
OPPOSITE = {"a1": "a2", "a2": "a1"}


@pytest.fixture
def study():
    project = ProjectFactory(redundancy=3)
    items = [ItemFactory(project=project) for _ in HONEST]
    honest = [UserFactory(username=f"honest-{n}") for n in range(2)]
    cheater = UserFactory(username="cheater")
    for item, label in zip(items, HONEST, strict=True):
        for worker in honest:
            answered(item, label, worker=worker)
        answered(item, OPPOSITE[label], worker=cheater)
    staff = UserFactory(username="staff", role="researcher")
    return project, items, cheater, staff


def _alpha(project) -> float:
    frame = annotation_frame(project=project).frame
    return krippendorff_alpha(frame, level="nominal").value


def _exported_workers(project, **options) -> set[str]:
    return {row["worker"] for row in annotation_rows(project=project, **options)}


def _redundancies(items) -> list[int]:
    return list(Item.objects.filter(pk__in=[i.pk for i in items]).order_by("pk").values_list("redundancy", flat=True))


def test_a_block_takes_the_answers_out_of_the_export_and_agreement_at_once_and_an_unblock_brings_them_back(study):
    project, items, cheater, staff = study
    before = _alpha(project)
    assert before < 0.5 and "cheater" in _exported_workers(project)

    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, reason="random answers", actor=staff)
    frame = annotation_frame(project=project).frame
    assert set(frame["worker"]) == {"honest-0", "honest-1"} and len(frame) == 8
    assert _alpha(project) == pytest.approx(1.0)
    assert _exported_workers(project) == {"honest-0", "honest-1"}
    # On request, to audit: the blocked worker's rows, marked by their standing.
    audited = {row["worker"]: row["standing"] for row in annotation_rows(project=project, include_blocked=True)}
    assert audited == {"honest-0": "active", "honest-1": "active", "cheater": "blocked"}

    standing_set(project=project, worker=cheater, state=Standing.ACTIVE, reason="reviewed: honest", actor=staff)
    assert _alpha(project) == pytest.approx(before)
    assert _exported_workers(project) == {"honest-0", "honest-1", "cheater"}

    moves = list(AuditEntry.objects.filter(project=project, action__startswith="answers_").order_by("pk"))
    assert [(m.action, m.actor, m.target, m.details["answers"]) for m in moves] == [
        ("answers_excluded", staff, "worker cheater", 4), ("answers_restored", staff, "worker cheater", 4)]
    assert moves[0].details["reason"] == "random answers" and moves[0].details["items_changed"] == 4


def test_a_rules_block_is_audited_too_without_an_actor(study):
    project, _, cheater, _ = study
    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, reason="Gold accuracy (rule 1)", audit=False)
    entry = AuditEntry.objects.get(project=project, action="answers_excluded")
    assert entry.actor is None and entry.details["answers"] == 4
    # The standing change itself is the rule's decision, not a staff action.
    assert not AuditEntry.objects.filter(project=project, action__startswith="standing:").exists()


def test_each_item_the_blocked_worker_answered_is_opened_for_one_more_answer(study):
    project, items, cheater, staff = study
    newcomer = UserFactory()
    assert assignment_next(project=project, worker=newcomer).reason == "done"  # every item has its N = 3

    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, actor=staff)
    assert _redundancies(items) == [4, 4, 4, 4]
    served = assignment_next(project=project, worker=newcomer).assignment
    assert served is not None and served.item_id == items[0].pk
    answered(items[1], "a1", worker=UserFactory())  # another item got its replacement answer meanwhile

    standing_set(project=project, worker=cheater, state=Standing.ACTIVE, actor=staff)
    # Back to N where no replacement came; an item answered again keeps the extra answer (both are data).
    assert _redundancies(items) == [4, 4, 3, 3]
    assert Item.objects.get(pk=items[1].pk).n_active == 4


def test_rejecting_a_blocked_workers_answers_closes_the_extra_slots(study):
    project, items, cheater, staff = study
    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, actor=staff)
    assert worker_work_reject(project=project, worker=cheater, note="random answers", reviewer=staff) == 4
    # Each rejection freed the slot the answer held: the item needs one more answer, not two.
    assert [(i.n_active, i.redundancy) for i in Item.objects.filter(pk__in=[i.pk for i in items]).order_by("pk")] \
        == [(2, 3)] * 4


def test_a_new_project_n_keeps_the_extra_slots(study):
    project, items, cheater, staff = study
    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, actor=staff)
    project_set_redundancy(project=project, redundancy=5)
    assert _redundancies(items) == [6, 6, 6, 6]


def test_with_the_option_off_a_blocked_workers_answers_stay_until_rejected(study):
    project, items, cheater, staff = study
    quality_policy(project, blocked_answers_excluded=False)
    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, actor=staff)
    assert "cheater" in set(annotation_frame(project=project).frame["worker"])
    assert "cheater" in _exported_workers(project)
    assert _redundancies(items) == [3, 3, 3, 3]
    assert not AuditEntry.objects.filter(project=project, action__startswith="answers_").exists()


def test_turning_the_option_off_and_on_moves_the_blocked_workers_answers_with_an_audit_entry(study):
    project, items, cheater, staff = study
    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, actor=staff)
    quality_policy_update(project=project, values={"blocked_answers_excluded": False}, actor=staff)
    assert "cheater" in _exported_workers(project) and _redundancies(items) == [3, 3, 3, 3]
    quality_policy_update(project=project, values={"blocked_answers_excluded": True}, actor=staff)
    assert "cheater" not in _exported_workers(project) and _redundancies(items) == [4, 4, 4, 4]
    moves = AuditEntry.objects.filter(project=project, action__startswith="answers_", target="1 blocked worker")
    assert sorted((m.action, m.details["answers"], m.details["workers"]) for m in moves) == [
        ("answers_excluded", 4, 1), ("answers_restored", 4, 1)]


def test_the_queues_and_gold_promotion_leave_a_blocked_workers_answers_out(study):
    project, items, cheater, staff = study
    split = ItemFactory(project=project)  # split only by the cheater's answer
    answered(split, "a1", worker=UserFactory())
    answered(split, "a2", worker=cheater)
    disputed = gold_item(project, right=1, wrong=1)  # disputed only with the cheater's wrong answer
    wrong = answered(disputed, "a2", worker=cheater, purpose=Purpose.GOLD).assignment
    CheckResult.objects.create(assignment=wrong, project=project, worker=cheater, purpose=Purpose.GOLD, score=0.0,
                               right=False, method="exact", expected={"label": "a1"}, scored_at=timezone.now())
    flagged = AssignmentFactory(item=ItemFactory(project=project), worker=cheater, status=Assignment.Status.RETURNED)
    ItemFlag.objects.create(assignment=flagged, project=project, item=flagged.item, worker=cheater, problem="text",
                            reason="broken", created_at=timezone.now())
    contested, _ = contested_items(project=project)
    assert {split.pk, disputed.pk} <= set(contested) and open_flag_count(project=project) == 1
    assert len(item_answers(item=split)) == 2
    assert not unanimous_items(project=project, min_answers=2)  # the cheater's answer spoils every item

    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, actor=staff)
    contested, _ = contested_items(project=project)
    assert split.pk not in contested and disputed.pk not in contested
    assert open_flag_count(project=project) == 0 and flagged_items(project=project)[1] == []
    assert len(item_answers(item=split)) == 1
    assert [item.pk for item, _, _ in unanimous_items(project=project, min_answers=2)] == [i.pk for i in items]


def test_the_export_says_what_it_leaves_out_and_gives_it_on_request(study, capsys):
    project, _, cheater, staff = study
    standing_set(project=project, worker=cheater, state=Standing.BLOCKED, actor=staff)
    api = APIClient()
    api.force_authenticate(staff)
    url = f"/api/projects/{project.slug}/annotations/"
    plain = api.get(url, {"fmt": "json"})
    rows = json.loads(b"".join(plain.streaming_content))
    assert plain[EXCLUDED_HEADER] == "1" and {r["worker"] for r in rows} == {"honest-0", "honest-1"}
    audited = api.get(url, {"fmt": "json", "include_blocked": "1"})
    rows = json.loads(b"".join(audited.streaming_content))
    assert audited[EXCLUDED_HEADER] == "0" and {r["standing"] for r in rows} == {"active", "blocked"}
    refused = api.get(url, {"fmt": "json", "include_blocked": "yes please"})
    assert refused.status_code == 400 and set(refused.json()) == {"include_blocked"}
    export = AuditEntry.objects.filter(project=project, action="export").order_by("pk").last()
    assert export.details["include_blocked"] is True

    call_command("export_annotations", project.slug, "--format", "csv")
    out, err = capsys.readouterr()
    assert "cheater" not in out and "1 worker blocked" in err and out.splitlines()[0].split(",")[6] == "standing"
    call_command("export_annotations", project.slug, "--format", "csv", "--include-blocked")
    assert "cheater" in capsys.readouterr().out
