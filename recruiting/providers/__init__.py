"""Clients for the recruiting marketplaces' own APIs (no ORM here: services call them)."""
