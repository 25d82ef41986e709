"""Django admin for the bonus ledger: list and filter bonuses, grant one by hand, mark the
selected ones paid once the marketplace paid them. Writes go through the bonus services."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils.translation import ngettext

from recruiting.models import Bonus
from recruiting.services.bonuses import REMOVABLE, bonus_grant, bonus_remove, bonuses_mark_paid


class PaidFilter(admin.SimpleListFilter):
    title = "paid"
    parameter_name = "paid"

    def lookups(self, request, model_admin):
        return [("yes", "Paid"), ("no", "Unpaid")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(paid_at__isnull=self.value() == "no")
        return queryset


class BonusForm(forms.ModelForm):
    class Meta:
        model = Bonus
        fields = ["project", "worker", "annotation", "amount", "currency", "reason", "paid_note"]

    def clean(self):
        data = super().clean()
        # The database refuses these too; here the admin gets a message instead of an error page.
        if data.get("amount") is not None and data["amount"] <= 0:
            self.add_error("amount", "A bonus must be positive.")
        ann, project, worker = data.get("annotation"), data.get("project"), data.get("worker")
        if ann is not None and project is not None and worker is not None and (
                ann.assignment.project_id != project.pk or ann.assignment.worker_id != worker.pk):
            self.add_error("annotation", "A bonus for an annotation goes to its worker in its project.")
        return data


@admin.register(Bonus)
class BonusAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "worker", "amount", "currency", "reason", "created_at", "payment_state", "paid_at"]
    list_filter = ["project", PaidFilter, "payment_state"]
    search_fields = ["worker__username", "worker__profile__external_id", "reason"]
    list_select_related = ["project", "worker"]
    raw_id_fields = ["worker", "annotation"]
    actions = ["mark_paid"]
    form = BonusForm
    fields = ["project", "worker", "annotation", "amount", "currency", "reason", "created_at", "payment_state", "paid_at",
              "paid_note"]

    def get_readonly_fields(self, request, obj=None):
        # Granted bonuses keep what was owed and why; only the payment note stays editable.
        if obj is None:
            return ["created_at", "payment_state", "paid_at", "paid_note"]
        return [f for f in self.fields if f != "paid_note"]

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        granted = bonus_grant(project=obj.project, worker=obj.worker, amount=obj.amount, reason=obj.reason,
                              annotation=obj.annotation, currency=obj.currency, actor=request.user)
        obj.pk, obj.created_at = granted.pk, granted.created_at

    def has_delete_permission(self, request, obj=None):
        # A paid bonus stays in the ledger (the money is gone), and so does one being paid.
        return super().has_delete_permission(request, obj) and (obj is None or (obj.payment_state in REMOVABLE
                                                                      and (obj.payment_id is None or obj.payment_state != "owed")))

    def delete_model(self, request, obj):
        bonus_remove(bonus=obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        # One by one through the service: a paid bonus stays, and each removal is audited.
        for bonus in queryset:
            try:
                bonus_remove(bonus=bonus, actor=request.user)
            except ValueError as exc:
                self.message_user(request, str(exc), messages.WARNING)

    @admin.action(description="Mark the selected bonuses as paid", permissions=["change"])
    def mark_paid(self, request, queryset):
        n = bonuses_mark_paid(bonuses=queryset, note=f"marked paid by {request.user.get_username()}",
                              actor=request.user)
        skipped = queryset.count() - n
        text = ngettext("Marked %(n)d bonus as paid.", "Marked %(n)d bonuses as paid.", n) % {"n": n}
        if skipped:
            text += " " + ngettext("%(n)d was paid before and keeps its date.", "%(n)d were paid before and keep their date.",
                                   skipped) % {"n": skipped}
        self.message_user(request, text, messages.SUCCESS)
