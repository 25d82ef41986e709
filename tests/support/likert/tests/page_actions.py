"""The toy type's rows of the page-action table (tests/annotation/api/page_action_table.py),
kept in its folder as any type's are."""

READS: dict[str, tuple[str | None, str]] = {
    "url:likert-counts": ("api-annotations", "each annotation's rating, which the page counts"),
}
