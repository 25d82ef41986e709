"""The key-point set ranking type's slug and limits, shared by the type and the item builder."""

SLUG = "key_point_sets"
MAX_SETS = 5
SET_IDS = "abcde"
