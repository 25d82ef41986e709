from django.apps import AppConfig


class CounterSpeechConfig(AppConfig):
    name = "task_types.counter_speech"
    label = "counter_speech"
    verbose_name = "Counter-speech selection"

    def ready(self) -> None:
        from analysis.reports import register as register_report
        from annotation.task_types import register
        from task_types.counter_speech.report import CounterSpeechReport
        from task_types.counter_speech.task import CounterSpeech

        register(CounterSpeech)
        register_report(CounterSpeechReport)
