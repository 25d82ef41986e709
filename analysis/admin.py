from django.contrib import admin

from analysis.models import AnalysisRun


@admin.register(AnalysisRun)
class AnalysisRunAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "kind", "status", "progress", "annotations_seen", "created_at", "finished_at"]
    list_filter = ["status", "kind", "project"]
    readonly_fields = [f.name for f in AnalysisRun._meta.fields]

    def get_queryset(self, request):
        # The list never shows results, and a result can be tens of megabytes.
        qs = super().get_queryset(request)
        match = request.resolver_match
        return qs if match is not None and match.url_name.endswith("_change") else qs.defer("result")

    def has_add_permission(self, request):
        return False
