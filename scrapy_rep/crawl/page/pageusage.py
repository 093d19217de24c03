"""What a fetched page says about its own use (the Scrapy side of
:meth:`scrapy_rep.usage.policy.UsagePolicy.after_fetch`).

Read from the response: the ``Content-Usage`` header (IETF aipref attach §2), the
``Content-Signal`` header (Cloudflare's converted pages; a page-level signal), the
``tdm-reservation`` / ``tdm-policy`` headers and ``<meta>`` elements (W3C TDMRep §3.2,
§3.3; read only when the crawl has an AI purpose), and ``noai`` / ``noimageai`` from the
page's directives, already read for :mod:`scrapy_rep.crawl.page.spidermiddlewares`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from scrapy_rep.crawl.page.pagereader import meta_tags
from scrapy_rep.usage.policy import PageSignals
from scrapy_rep.usage.tdmrep import NO_VALUES, header_values, meta_values

if TYPE_CHECKING:
    from scrapy.http import Response

    from scrapy_rep.directives import PageDirectives

#: The meta names of TDMRep (report §3.3).
TDM_NAMES: Final = frozenset({"tdm-reservation", "tdm-policy"})


def page_signals(
    response: Response,
    directives: PageDirectives,
    *,
    tdm: bool,
    noscript: bool = True,
    tdm_meta_tags: list[tuple[str, str]] | None = None,
    embedded_by: str = "",
) -> PageSignals:
    """The usage signals of ``response``; ``tdm``: read TDMRep's header and meta too
    (``tdm_meta_tags``: its meta tags, already found with the robots meta tags);
    ``embedded_by``: the ``noimageai`` of the page that showed this image, if any."""
    headers = response.headers
    content_usage = headers.getlist(b"Content-Usage") if b"Content-Usage" in headers else []
    content_signal = headers.getlist(b"Content-Signal") if b"Content-Signal" in headers else []
    tdm_header = tdm_meta = NO_VALUES
    if tdm:
        if b"tdm-reservation" in headers or b"tdm-policy" in headers:
            tdm_header = header_values(
                headers.getlist(b"tdm-reservation"), headers.getlist(b"tdm-policy")
            )
        found = tdm_meta_tags
        if found is None:
            found = meta_tags(response, TDM_NAMES, noscript=noscript)
        if found:
            tdm_meta = meta_values(
                [content for name, content in found if name == "tdm-reservation"],
                [content for name, content in found if name == "tdm-policy"],
            )
    content_type = headers.get(b"Content-Type") or b""
    return PageSignals(
        content_usage,
        tdm_header,
        tdm_meta,
        directives,
        content_type.lstrip().lower().startswith(b"image/"),
        embedded_by,
        content_signal,
    )
