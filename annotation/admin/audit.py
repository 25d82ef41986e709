"""Django admin of the audit log: read-only, filtered by project, action and actor, searched by
target and actor; the CSV downloads are linked from the list (``annotation.views.audit``)."""

from __future__ import annotations

from django.contrib import admin

from annotation.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ["at", "actor_name", "project", "action", "target"]
    list_filter = ["project", "action", ("actor", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["target", "action", "actor_name"]
    list_select_related = ["actor", "project"]
    date_hierarchy = "at"
    readonly_fields = ["at", "actor", "actor_name", "project", "action", "target", "details"]
    fields = ["at", "actor", "actor_name", "project", "action", "target", "details"]
    change_list_template = "admin/annotation/auditentry/change_list.html"
    show_facets = admin.ShowFacets.NEVER

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        # The log is the record of what staff did: nobody removes entries from it here.
        return False
