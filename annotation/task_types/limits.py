"""How long an imported text may be: one table for every task type and every importer.

Each limit is many times the longest value of its kind in the real corpora the platform was
built on (measured in ``docs/admins.md``), small enough that one row cannot fill a page, a
payload or an export cell. Every text value of any imported record, whatever its field, is held
to ``ANY_TEXT`` as well (``annotation.importers.check_record``), so a field no type names is
bounded too. Pure: importers, services and task types share it.
"""

from __future__ import annotations

# Ids of items, arguments, key points, speeches, prompts, workers: the database columns' length.
ID = 200
# A debate topic, motion, prompt of a pairwise topic, or key-point topic.
TOPIC = 500
# A stance given as text (UKPConvArg's debate side).
STANCE = 500
# A short argument (ArgKP, UKPConvArg).
ARGUMENT = 10_000
# A key point, an argument title (iDebate point), an option's text.
KEY_POINT = 500
TITLE = 500
# A person's or a system's name (speaker, author).
NAME = 200
# A transcript (manual or ASR), a prompt text, a reference answer.
TRANSCRIPT = 20_000
# Any text value of an imported record.
ANY_TEXT = 100_000
