"""The RSL license document as a :class:`~rep_engine.fetch.kinds.DocumentKind` (pure).

Its key is the license URL itself (found in robots.txt's ``License:`` line, a ``Link``
header or an HTML ``<link rel="license">``), so its ``path`` is empty and one document
is fetched once per license URL whichever origins name it. Stand-ins (RSL 1.0 and
docs/purpose-notes.md §9): absent (a 4xx) means no license terms; unreachable (given up
on) means no AI use for now, as tdmrep.json's "everything reserved"; a request for it
that another component refused (``IgnoreRequest``), or whose redirects cannot be
followed (a loop, more than 5 hops, ``file:``/``ftp:``/``data:``, a broken or missing
``Location``), means its terms were not read: an empty body, unreadable, no AI use.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Final

from rep_engine.fetch.kinds import DocumentKind
from rep_engine.usage.rsl.document import (
    ABSENT,
    ROBOTS_TXT_NAMES,
    UNREACHABLE,
    RslDocument,
    not_read,
    parse_rsl,
)

#: Appended to a license URL to name its record in a shared store: a license URL may be
#: any URL, even ``https://host/.well-known/tdmrep.json``; ``#`` never ends a key we store
#: (keys are fragment-free URLs and origins), so the names never collide.
STORE_SUFFIX: Final = "#rsl"


def rsl_size(document: RslDocument, body: bytes) -> int:
    """Bytes a parsed RSL document keeps in memory: 1 KiB, and per ``<content>`` 384
    bytes plus three times its url (as written and its pattern's variants), per license
    640 bytes, 100 per usage token and condition, 300 per payment, 200 per further
    variant of a url's pattern. Measured with tracemalloc (parse plus one match): 500 KiB
    of ``<content>`` elements keeps 1.4 to 8.4 MB (2.9 to 16.6 bytes per body byte, where
    the body's size counted 0.5 MB); on short, long, full, escaped urls, with and without
    licenses, payments and conditions, the estimate is never low and high by at most
    60 %."""
    size = 1024
    for content in document.contents:
        size += 384 + 3 * len(content.url) + 200 * (content.variants - 1)
        for terms in content.licenses:
            tokens = len(terms.permits or ()) + len(terms.prohibits) + len(terms.conditions)
            size += 640 + 100 * tokens + 300 * len(terms.payments)
    return size


RSL: Final[DocumentKind[RslDocument]] = DocumentKind(
    name="rsl",
    path="",
    when_absent="no license terms",
    when_unreachable="no AI use for now",
    stat_prefix="rep/rsl",
    absent=ABSENT,
    unreachable=UNREACHABLE,
    parse=parse_rsl,
    size_of=rsl_size,
    store_suffix=STORE_SUFFIX,
    record="rsl",
    when_ignored="license terms not read, no AI use",
    parse_cut=partial(parse_rsl, truncated=True),
)


def is_http_url(text: str) -> bool:
    """Whether ``text`` is an absolute http(s) URL (RSL's robots.txt guide: "a fully
    qualified URL, including the protocol and host")."""
    scheme, sep, rest = text.partition("://")
    return bool(sep) and scheme.lower() in ("http", "https") and bool(rest.split("/", 1)[0])


def license_key(url: str) -> str | None:
    """The key of a license URL as named (robots.txt, ``Link``, ``<link>``): without its
    fragment and surrounding space; ``None`` if it is not an absolute http(s) URL."""
    key = url.strip().split("#", 1)[0]
    return key if is_http_url(key) else None


def licenses_to_wait_for(licenses: Iterable[str]) -> tuple[str, ...]:
    """The license keys a request of a crawl with a purpose waits for, given its
    origin's ``RobotsTxt.licenses`` (every purpose: an RSL ``<prohibits>`` of ``search``
    is a no for a search crawl, purpose-notes §9), without repeats or unusable URLs."""
    keys = (license_key(url) for url in licenses)
    return tuple(dict.fromkeys(key for key in keys if key is not None))


def licenses_not_read(
    keys: tuple[str, ...], bound: int | None, naming: str = ROBOTS_TXT_NAMES
) -> tuple[str, RslDocument] | None:
    """When ``keys`` (the licenses a crawler would read, :func:`licenses_to_wait_for`, or
    those a page names, with ``naming`` = ``PAGE_NAMES``) are more than ``bound``
    (``REP_RSL_MAX_LICENSES``; ``None``: no bound), the pair (the first key beyond the
    bound, the stand-in that refuses every purpose) read in their place: none of them is
    fetched (docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read per
    robots.txt'); else ``None``."""
    if bound is None or len(keys) <= bound:
        return None
    return keys[bound], not_read(len(keys), bound, naming)
