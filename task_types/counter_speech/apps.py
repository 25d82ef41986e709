from django.apps import AppConfig


class CounterSpeechConfig(AppConfig):
    name = "task_types.counter_speech"
    label = "counter_speech"
    verbose_name = "Counter-speech selection"

    def ready(self) -> None:
        from analysis.reports import register_lazily
        from annotation.task_types import register
        from task_types.counter_speech.task import CounterSpeech

        register(CounterSpeech)
        # The report (and the methods it brings) is imported when the registry is first read.
        register_lazily("task_types.counter_speech.report.CounterSpeechReport")
