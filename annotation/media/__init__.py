"""Media files as files: what an audio file is (``formats``), how long it plays (``durations``),
how an import's files are read and checked (``sources``), the references under which a worker
meets them (``refs``) and the bytes of them sent (``byte_ranges``). No database access here: the
model is ``annotation.models.media``, its writes ``annotation.services.media``, its reads
``annotation.selectors.media``, and sending a file to a browser ``annotation.views.media``."""
