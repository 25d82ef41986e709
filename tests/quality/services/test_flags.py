"""Items flagged as broken: the worker's open assignment goes back with the flag recorded, once;
staff withdraw the item (its open slots come back) or dismiss the reports; both are audited."""

import pytest

from annotation.models import Assignment, AuditEntry, Item, ItemKind
from annotation.services import assignment_next
from annotation.services.errors import NotYours, WorkflowError
from quality.models import ItemFlag
from quality.services.flags import FlagInvalid, item_flag, item_flags_dismiss, item_withdraw
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


def open_assignment(project=None):
    project = project or ProjectFactory(redundancy=2)
    ItemFactory(project=project)
    worker = UserFactory()
    return assignment_next(project=project, worker=worker).assignment, worker


def test_flagging_returns_the_assignment_and_records_the_flag():
    a, worker = open_assignment()
    flag = item_flag(assignment=a, worker=worker, problem="text", reason="  The second argument is cut off. ")
    a.refresh_from_db()
    assert a.status == S.RETURNED and Item.objects.get(pk=a.item_id).n_active == 0
    assert (flag.item_id, flag.project_id, flag.worker, flag.problem, flag.reason) == (
        a.item_id, a.project_id, worker, "text", "The second argument is cut off.")
    assert flag.resolved_at is None
    # The worker moves on and never gets the item again.
    assert assignment_next(project=a.project, worker=worker).assignment is None


def test_flagging_twice_returns_the_first_flag():
    a, worker = open_assignment()
    first = item_flag(assignment=a, worker=worker, problem="media", reason="silent")
    again = item_flag(assignment=a, worker=worker, problem="other", reason="another try")
    assert again.pk == first.pk and ItemFlag.objects.count() == 1 and again.problem == "media"


def test_another_workers_assignment_is_refused_and_unchanged():
    a, _ = open_assignment()
    with pytest.raises(NotYours):
        item_flag(assignment=a, worker=UserFactory(), problem="text", reason="garbled")
    a.refresh_from_db()
    assert a.status == S.ASSIGNED and not ItemFlag.objects.exists()


@pytest.mark.parametrize(("problem", "reason", "field"), [
    ("broken", "x", "problem"), ("text", "", "reason"), ("text", "  ", "reason"), ("text", "x" * 501, "reason")])
def test_bad_reports_are_refused_and_the_item_stays(problem, reason, field):
    a, worker = open_assignment()
    with pytest.raises(FlagInvalid) as refused:
        item_flag(assignment=a, worker=worker, problem=problem, reason=reason)
    assert field in refused.value.errors
    a.refresh_from_db()
    assert a.status == S.ASSIGNED and not ItemFlag.objects.exists()


def test_an_answered_assignment_cannot_be_flagged():
    a = AssignmentFactory(status=S.SUBMITTED)
    with pytest.raises(WorkflowError):
        item_flag(assignment=a, worker=a.worker, problem="text", reason="late")
    assert not ItemFlag.objects.exists()


@pytest.mark.parametrize("kind", [ItemKind.REAL, ItemKind.GOLD])
def test_withdrawing_serves_the_item_to_nobody_returns_open_slots_and_resolves_flags(kind):
    project = ProjectFactory(redundancy=3)
    item = ItemFactory(project=project, kind=kind)
    flagged = AssignmentFactory(item=item)
    holding = [AssignmentFactory(item=item) for _ in range(2)]
    item_flag(assignment=flagged, worker=flagged.worker, problem="options", reason="no option fits")
    assert Item.objects.get(pk=item.pk).n_active == 2
    admin = UserFactory(role="admin")
    withdrawn = item_withdraw(item=item, actor=admin, note="broken audio")
    assert withdrawn.kind == ItemKind.WITHDRAWN and withdrawn.n_active == 0
    assert all(a.status == S.RETURNED for a in Assignment.objects.filter(pk__in=[h.pk for h in holding]))
    flag = ItemFlag.objects.get()
    assert flag.resolution == "withdrawn" and flag.resolved_at is not None
    entry = AuditEntry.objects.get(action="item_withdraw")
    assert entry.actor == admin and entry.details["returned_assignments"] == 2 and entry.details["kind_before"] == kind


def test_dismissing_keeps_the_item_and_resolves_its_open_flags():
    project = ProjectFactory(redundancy=3)
    item = ItemFactory(project=project)
    for _ in range(2):
        a = AssignmentFactory(item=item)
        item_flag(assignment=a, worker=a.worker, problem="text", reason="looks odd")
    holding = AssignmentFactory(item=item)
    assert item_flags_dismiss(item=item, actor=UserFactory(role="admin")) == 2
    item.refresh_from_db()
    holding.refresh_from_db()
    assert item.kind == ItemKind.REAL and holding.status == S.ASSIGNED
    assert set(ItemFlag.objects.values_list("resolution", flat=True)) == {"dismissed"}
    assert AuditEntry.objects.get(action="flags_dismiss").details["flags_resolved"] == 2


@pytest.mark.parametrize("kind", [ItemKind.REAL, ItemKind.GOLD, ItemKind.TRAINING])
def test_a_withdrawal_undone_restores_the_item_its_reports_and_is_audited(kind):
    from quality.services.flags import item_withdrawal_undo

    project, boss = ProjectFactory(redundancy=2), UserFactory(role="admin")
    item = ItemFactory(project=project, kind=kind)
    held = AssignmentFactory(item=item)
    flag = ItemFlag.objects.create(assignment=held, project=project, item=item, worker=held.worker, problem="text",
                                   reason="cut off", created_at=held.assigned_at)
    item_withdraw(item=item, actor=boss)
    item.refresh_from_db()
    assert (item.kind, item.kind_before_withdrawal) == (ItemKind.WITHDRAWN, kind)
    restored = item_withdrawal_undo(item=item, actor=boss, note="withdrawn by mistake")
    assert (restored.kind, restored.kind_before_withdrawal) == (kind, "")
    flag.refresh_from_db()
    assert (flag.resolved_at, flag.resolution) == (None, "")
    entry = AuditEntry.objects.get(action="item_withdraw_undo")
    assert entry.actor == boss and entry.details["kind_after"] == kind and entry.details["flags_reopened"] == 1
    # The assignment the withdrawal gave back stays given back.
    held.refresh_from_db()
    assert held.status == S.RETURNED


def test_undoing_an_item_that_is_not_withdrawn_is_refused():
    from quality.services.flags import item_withdrawal_undo

    item = ItemFactory(project=ProjectFactory())
    with pytest.raises(WorkflowError, match="not withdrawn"):
        item_withdrawal_undo(item=item, actor=None)
    assert not AuditEntry.objects.exists()
