"""Template tags of quality control's pieces of shared pages."""

from django import template

from quality.models import ItemFlag

register = template.Library()


@register.simple_tag
def flag_problems() -> list[tuple[str, str]]:
    """(value, text) of what a worker may report about an item."""
    return list(ItemFlag.Problem.choices)
