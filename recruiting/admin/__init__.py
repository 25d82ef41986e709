"""The Django admin of recruiting: the bonus ledger and the Prolific records; importing them
registers them."""

from recruiting.admin import bonuses, prolific  # noqa: F401
