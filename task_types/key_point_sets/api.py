"""REST API of the key-point set type's project tool: build set comparisons from systems' track 2
output, as the admin's page does (``task_types.key_point_sets.sets_tool``)."""

from __future__ import annotations

from annotation.api.project_tools import ProjectTool, tool_schema
from task_types.key_point_sets.sets_tool import SetsForm, sets_build


@tool_schema("key_point_sets_build", SetsForm)
class SetsBuild(ProjectTool):
    form_class = SetsForm

    def run(self, **kwargs):
        return sets_build(**kwargs)
