"""Django admin of the crowd workflow's records: items, assignments (approved or rejected here,
through the services), annotations with their earlier versions, and consents."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.template.response import TemplateResponse
from django.utils.translation import ngettext

from annotation.admin.paging import LargeTablePaginator
from annotation.models import Annotation, AnnotationRevision, Assignment, Consent, Item
from annotation.services import assignments_review
from annotation.services.review import NOTE_LENGTH, ReviewOutcome
from annotation.wording import count_of

# How a status that cannot be reviewed is said of n assignments.
NOT_REVIEWABLE: dict[str, tuple[str, str]] = {
    Assignment.Status.ASSIGNED: ("%(n)d assignment is still open", "%(n)d assignments are still open"),
    Assignment.Status.EXPIRED: ("%(n)d assignment expired unanswered", "%(n)d assignments expired unanswered"),
    Assignment.Status.RETURNED: ("%(n)d assignment was skipped or given back", "%(n)d assignments were skipped or given back"),
}


def review_message(outcome: ReviewOutcome, *, approve: bool) -> tuple[str, int]:
    """The message reporting a review action, and its level: what was done, and why the rest
    of the selection was not."""
    n = outcome.reviewed
    verb = "approved" if approve else "rejected"
    if n:
        parts = [(ngettext("Approved %(n)d assignment.", "Approved %(n)d assignments.", n) if approve
                  else ngettext("Rejected %(n)d assignment.", "Rejected %(n)d assignments.", n)) % {"n": n}]
    else:
        parts = [f"No assignment was {verb}."]
    if outcome.unchanged:
        parts.append(ngettext("%(n)d was already %(verb)s.", "%(n)d were already %(verb)s.", outcome.unchanged)
                     % {"n": outcome.unchanged, "verb": verb})
    if outcome.not_submitted:
        said = []
        for status, count in sorted(outcome.not_submitted.items()):
            singular, plural = NOT_REVIEWABLE.get(status, (f"%(n)d assignment is {status}", f"%(n)d assignments are {status}"))
            said.append(ngettext(singular, plural, count) % {"n": count})
        parts.append(f"{', '.join(said)}: only submitted assignments can be {verb}.")
    if outcome.slots_filled:
        parts.append(ngettext("%(n)d could not be approved: its item's slots were filled again after the rejection.",
                              "%(n)d could not be approved: their items' slots were filled again after the rejection.",
                              outcome.slots_filled) % {"n": outcome.slots_filled})
    problems = bool(outcome.not_submitted or outcome.slots_filled)
    level = messages.WARNING if problems and not n else messages.INFO if problems else messages.SUCCESS
    return " ".join(parts), level


class ReviewNoteForm(forms.Form):
    note = forms.CharField(label="Why", max_length=NOTE_LENGTH, widget=forms.Textarea(attrs={"rows": 3}),
                           help_text="Kept with each assignment (its review note) and in the audit log, with your name.")


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["external_id", "project", "kind", "position", "n_active", "redundancy"]
    # What an item is served as: gold questions and training items are changed by an import
    # (their known answer with them) or by promotion, never by hand here.
    list_filter = ["project", "kind"]
    search_fields = ["external_id"]
    list_select_related = ["project"]
    paginator = LargeTablePaginator
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER  # counts per filter value would read every row
    readonly_fields = ["project", "external_id", "kind", "payload", "position", "n_active", "created_at", "updated_at"]
    fields = [*readonly_fields[:4], "gold", "redundancy", *readonly_fields[4:]]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "item", "project", "worker", "status", "assigned_at", "submitted_at"]
    list_filter = ["status", "project"]
    search_fields = ["item__external_id", "worker__username"]
    readonly_fields = ["item", "project", "worker", "status", "assigned_at", "expires_at", "submitted_at", "reviewed_at", "review_note"]
    actions = ["approve", "reject"]
    list_select_related = ["item", "project", "worker"]
    # Newest first by id (its index), not by time: no sort of a large project's assignments.
    ordering = ["-id"]
    paginator = LargeTablePaginator
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER  # counts per filter value would read every row

    def has_add_permission(self, request):
        return False

    @admin.action(description="Approve the selected submitted assignments", permissions=["change"])
    def approve(self, request, queryset):
        return self._review(request, queryset, approve=True)

    @admin.action(description="Reject the selected assignments (frees their slots)", permissions=["change"])
    def reject(self, request, queryset):
        return self._review(request, queryset, approve=False)

    def _review(self, request, queryset, *, approve: bool):
        """A page that asks why, then the verdict: the note is kept with each assignment and in
        the audit log, with who decided."""
        verb = "approve" if approve else "reject"
        form = ReviewNoteForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            outcome = assignments_review(assignments=list(queryset), approve=approve, reviewer=request.user,
                                         note=form.cleaned_data["note"])
            self.message_user(request, *review_message(outcome, approve=approve))
            return None
        ctx = {**self.admin_site.each_context(request), "opts": self.model._meta,
               "title": f"{verb.capitalize()} {count_of(queryset.count(), 'assignment', 'assignments')}",
               "form": form, "action": verb, "selected": list(queryset.values_list("pk", flat=True)),
               "checkbox": ACTION_CHECKBOX_NAME}
        return TemplateResponse(request, "admin/annotation/assignment/review.html", ctx)


class RevisionInline(admin.TabularInline):
    model = AnnotationRevision
    extra = 0
    can_delete = False
    readonly_fields = ["version", "answer", "reason", "seconds", "client_seconds", "saved_at", "replaced_at"]
    fields = [*readonly_fields]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = ["id", "assignment", "version", "reason", "seconds", "created_at", "revised_at"]
    list_filter = ["assignment__project"]
    readonly_fields = ["assignment", "version", "answer", "reason", "seconds", "client", "created_at", "revised_at"]
    inlines = [RevisionInline]
    list_select_related = ["assignment__item", "assignment__worker"]
    ordering = ["-id"]
    paginator = LargeTablePaginator
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER  # counts per filter value would read every row

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records of what people did: shown, never added or changed here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(AnnotationRevision)
class AnnotationRevisionAdmin(ReadOnlyAdmin):
    list_display = ["annotation", "version", "saved_at", "replaced_at"]
    list_filter = ["annotation__assignment__project"]
    readonly_fields = [f.name for f in AnnotationRevision._meta.fields]


@admin.register(Consent)
class ConsentAdmin(ReadOnlyAdmin):
    list_display = ["worker", "project", "accepted_at"]
    list_filter = ["project"]
    search_fields = ["worker__username"]
    readonly_fields = [f.name for f in Consent._meta.fields]
