"""Django admin of people: users with their worker profile (blocked and unblocked through the
services), and invites."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.utils.translation import ngettext

from annotation.models import Invite, WorkerProfile
from annotation.services import worker_block, worker_unblock
from annotation.services.accounts import account_created_record, account_delete


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ["user", "project", "created_at", "expires_at", "used_at"]
    readonly_fields = ["user", "project", "token_hash", "created_at", "expires_at", "used_at"]

    def has_add_permission(self, request):
        return False


class WorkerProfileInline(admin.StackedInline):
    model = WorkerProfile
    can_delete = False
    readonly_fields = ["role", "blocked", "blocked_reason", "blocked_at", "source", "external_id"]
    fields = [*readonly_fields, "must_change_password"]


User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    inlines = [WorkerProfileInline]
    list_display = ["username", "role", "blocked", "is_staff", "last_login"]
    list_filter = ["profile__role", "profile__blocked", "is_staff"]
    actions = ["block", "unblock"]
    list_select_related = ["profile"]

    def save_related(self, request, form, formsets, change):
        # After the inlines: the new account's profile (its role) is saved by then.
        super().save_related(request, form, formsets, change)
        if not change:
            account_created_record(user=form.instance, actor=request.user, via="admin")

    def delete_model(self, request, obj):
        account_delete(user=obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        for user in queryset:
            account_delete(user=user, actor=request.user)

    @admin.display(description="role")
    def role(self, obj):
        return getattr(getattr(obj, "profile", None), "role", "")

    @admin.display(description="blocked", boolean=True)
    def blocked(self, obj):
        return bool(getattr(getattr(obj, "profile", None), "blocked", False))

    @admin.action(description="Block the selected workers (their open items return to the pool)")
    def block(self, request, queryset):
        users = list(queryset)
        for user in users:
            worker_block(worker=user, reason=f"blocked by {request.user.get_username()}", actor=request.user)
        self.message_user(request, ngettext("Blocked %(n)d worker.", "Blocked %(n)d workers.", len(users)) % {"n": len(users)},
                          messages.SUCCESS)

    @admin.action(description="Unblock the selected workers")
    def unblock(self, request, queryset):
        users = list(queryset)
        for user in users:
            worker_unblock(worker=user, actor=request.user)
        self.message_user(request, ngettext("Unblocked %(n)d worker.", "Unblocked %(n)d workers.", len(users)) % {"n": len(users)},
                          messages.SUCCESS)
