"""A project's audio files on the web: the views that answer for them (``files``) and the
response that streams a stored file with byte ranges (``serving``)."""
