from django.contrib import admin

from analysis.models import AnalysisRun


@admin.register(AnalysisRun)
class AnalysisRunAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "kind", "status", "progress", "annotations_seen", "created_at", "finished_at"]
    list_filter = ["status", "kind", "project"]
    readonly_fields = [f.name for f in AnalysisRun._meta.fields]

    def has_add_permission(self, request):
        return False
