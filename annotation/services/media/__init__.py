"""Writes of a project's media: importing and deleting files (``files``), uploads imported as
jobs (``jobs``), and what the server sees of an assignment's use of them (``uses``)."""
