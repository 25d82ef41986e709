"""REST API of the counter-speech type's project tool: build questions from the IBM Debater
speeches, as the admin's page does (``task_types.counter_speech.build_tool``)."""

from __future__ import annotations

from annotation.api.project_tools import ProjectTool, tool_schema
from task_types.counter_speech.build_tool import BuildForm, questions_build


@tool_schema("counter_speech_build", BuildForm)
class QuestionsBuild(ProjectTool):
    form_class = BuildForm

    def run(self, **kwargs):
        return questions_build(**kwargs)
