"""What a page says to other crawlers: the robots headers and meta tags present that did
not apply to ours (another crawler's scope), for ``scrapy rep-robots --page`` to show
instead of "no robots meta tag or header" (Google's robots meta specification:
crawler-scoped ``X-Robots-Tag`` values and ``<meta name="googlebot">``)."""

from __future__ import annotations

import re
from typing import Any, Final

#: Words that make a meta tag's content read as robots directives.
DIRECTIVE_WORDS: Final = re.compile(
    r"\b(noindex|nofollow|none|noarchive|nocache|nosnippet|noimageindex|noai|noimageai|noml|"
    r"unavailable_after|max-snippet|notranslate)\b",
    re.IGNORECASE,
)


def other_directives(response: Any) -> list[str]:
    """Every ``X-Robots-Tag`` header of ``response`` and every meta tag whose content
    holds a robots directive, as written (used when none of them applied to us)."""
    found = [
        f"X-Robots-Tag: {value.decode('latin-1')}"
        for value in response.headers.getlist("X-Robots-Tag")
    ]
    if hasattr(response, "xpath"):
        try:
            metas = response.xpath("//meta[@name and @content]")
        except Exception:  # an unreadable page: the headers are all we can say
            metas = []
        for meta in metas:
            name, content = meta.attrib.get("name", ""), meta.attrib.get("content", "")
            if DIRECTIVE_WORDS.search(content):
                found.append(f'<meta name="{name}" content="{content}">')
    return found


def describe_sources(sources: tuple[str, ...], response: Any) -> str:
    """Where a page's directives came from, or what it holds for other crawlers."""
    if sources:
        return "; ".join(sources)
    others = other_directives(response)
    if others:
        return "none for this crawler; for other crawlers: " + "; ".join(others)
    return "no robots meta tag or header"
