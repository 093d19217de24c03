"""``noimageai`` on a page covers the images of that page (pure; docs/decisions.md, 'A page's
noimageai covers the images it shows').

DeviantArt (2022), who introduced the directive: "an HTML tag with the noimageai
directive is placed on the page and an HTTP header with the noai directive is sent when
the image is directly downloaded". So a page's ``noimageai`` speaks for the images it
shows: requests for them and the image URLs its items carry are refused for ``ai-train``
and ``ai-input`` (``REP_PURPOSE_ACTION = "drop"``) or carry :data:`IMAGE_USAGE_KEY`
(``"mark"``), a small JSON-able record that other components (a media pipeline reading
IPTC / C2PA opt-outs inside the files) can combine with their own verdict. A page's
``noimageindex`` ("Do not index images on this page", Google) does the same while
``REP_MEDIA_NOINDEX_MEANS_NO_AI`` is on (docs/decisions.md, 'noindex on a downloaded
file is a no for AI').
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import urlsplit

from rep_engine.usage.purpose import MAPPING, PURPOSES

#: ``request.meta`` key and item field of the per-image record.
IMAGE_USAGE_KEY: Final = "rep_image_usage"


def _refused_by(row: str) -> tuple[str, ...]:
    """The purposes the purpose table's ``robots-meta`` row ``row`` says no to."""
    answers = MAPPING[("robots-meta", row)].answers
    return tuple(
        purpose for purpose, answer in zip(PURPOSES, answers, strict=True) if answer is False
    )


#: The purposes a page's ``noimageai`` refuses for its images (the purpose table's
#: "noimageai (image response)" row: as ``noai``).
IMAGE_PURPOSES: Final = _refused_by("noimageai (image response)")
#: The purposes a page's ``noimageindex`` refuses for its images while
#: ``REP_MEDIA_NOINDEX_MEANS_NO_AI`` is on (the row "noimageindex (images of the page)").
INDEX_IMAGE_PURPOSES: Final = _refused_by("noimageindex (images of the page)")
#: File extensions read as images (Scrapy's ``IMAGE_EXTENSIONS`` of its link extractor,
#: and the newer formats).
IMAGE_EXTENSIONS: Final = frozenset(
    [
        "mng",
        "pct",
        "bmp",
        "gif",
        "jpg",
        "jpeg",
        "png",
        "pst",
        "psp",
        "tif",
        "tiff",
        "ai",
        "drw",
        "dxf",
        "eps",
        "ps",
        "svg",
        "cdr",
        "ico",
        "webp",
        "avif",
        "heic",
        "heif",
        "jxl",
        "apng",
    ]
)


def is_image_url(url: str) -> bool:
    """Whether ``url``'s path ends with an image file extension (case-insensitive)."""
    try:
        path = urlsplit(url).path
    except ValueError:
        return False
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot + 1 :].lower() in IMAGE_EXTENSIONS


def page_record(
    page_url: str, directive: str, purposes: tuple[str, ...] = IMAGE_PURPOSES
) -> dict[str, Any]:
    """The record of a ``noimageai`` page (or a ``noimageindex`` one: ``purposes``
    :data:`INDEX_IMAGE_PURPOSES`): the purposes refused and the sentence that says why
    (``directive``: the directive as the page wrote it)."""
    return {
        "purposes": list(purposes),
        "source": f"{directive} on {page_url}",
        "page": page_url,
    }


def for_request(record: dict[str, Any], url: str) -> dict[str, Any]:
    """The record put on one image request's meta."""
    return {**record, "url": url}


def for_item(record: dict[str, Any], urls: Iterable[str]) -> dict[str, Any]:
    """The record put on an item: the image URLs it carries that the page covers."""
    return {**record, "urls": list(urls)}


def record_for(meta: Any, url: str, redirects: Iterable[str] = ()) -> dict[str, Any] | None:
    """The record a request's meta holds for ``url`` (or one of the URLs it was
    redirected from); ``None`` when there is none, or it is another request's (spiders
    copy meta into the requests they yield)."""
    record = meta.get(IMAGE_USAGE_KEY) if hasattr(meta, "get") else None
    if not isinstance(record, dict):
        return None
    target = record.get("url")
    if target == url:
        return record
    try:
        return record if isinstance(target, str) and target in set(redirects) else None
    except TypeError:  # a meta value that is not a list of URLs
        return None
