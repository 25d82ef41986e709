"""The quality rules as services: a rule's verdict acted on, the decision recorded and the
worker blocked or sent to review (``decisions``); the rules that read single answers judged as
each answer arrives (``judging``), their running evidence kept per worker (``states``) and each
kind's sequential test and evidence (``verdicts``); a project's rules added, changed and deleted
(``settings``)."""
