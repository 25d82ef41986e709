"""Markdown for guidelines: rendered, then cleaned down to a safe set of tags."""

import markdown as markdown_lib
import nh3
from django import template
from django.utils.safestring import mark_safe

register = template.Library()

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "dl", "dt", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "li", "ol", "p", "pre", "strong", "sub", "sup", "table", "tbody", "td",
    "th", "thead", "tr", "ul",
}


@register.filter
def markdown(text: str) -> str:
    html = markdown_lib.markdown(text or "", extensions=["tables", "sane_lists"])
    # Safe only after nh3 has removed scripts, event handlers and unknown tags.
    return mark_safe(nh3.clean(html, tags=ALLOWED_TAGS, link_rel="noopener noreferrer nofollow"))
