"""The revision of each standard the code follows, in one place (pure).

The docs, the end-of-crawl report and the audit trail's run header read this table, so
what they say the crawl followed is what the code follows. Update a row in the same
commit that moves the code to a newer revision.
"""

from __future__ import annotations

from typing import Final

#: Standard -> the revision followed (and where it is read).
STANDARDS: Final[dict[str, str]] = {
    "robots.txt": (
        "RFC 9309 (Sep 2022), read as Google's open-source parser reads it "
        "(google/robotstxt robots.cc, commit 22b355f, 2026-04-01)"
    ),
    "robots meta / X-Robots-Tag": "Google Search Central robots meta tag specification",
    "Robots-Tag": (
        "draft-illyes-repext-03 (18 Apr 2026; garyillyes/ietf-rep-ext 3e32b3c; an "
        "individual draft, expired 2026-10-20, no successor yet): the Robots-Tag response "
        "header, a Structured Field List read beside X-Robots-Tag"
    ),
    "aipref-vocab": (
        "draft-ietf-aipref-vocab-08 (13 Sep 2026; primary text, ietf-wg-aipref/drafts "
        "gh-pages draft-ietf-aipref-vocab-08/): train-ai, ai-use, search; -07 statements "
        "keep their meaning"
    ),
    "aipref-attach": "draft-ietf-aipref-attach-05 (§3: Content-Usage is a rule of its group)",
    "robots-ai-control": (
        "draft-canel-robots-ai-control-00 (21 Oct 2024, Microsoft), whose rules are read; "
        "-01 (4 Apr 2025) exists and was not read"
    ),
    "content-signal": (
        "Cloudflare Content Signals Policy (2025), with its use= key (2026; read from a "
        "secondary source)"
    ),
    "training-preference": (
        "draft-kelley-aipref-training-preference-signal-00 (30 Oct 2026): a training "
        "preference written as robots.txt groups named by a policy token (spelled "
        "__usage_ai-training in a secondary source); only the abstract is readable; Google's "
        "crawling changelog (30 Oct 2026) notes its intention to support it. Not read as such: "
        "a crawl obeys such a group only when REP_PURPOSE_AGENTS names the token "
        "(docs/purpose-notes.md)"
    ),
    "tdmrep": "W3C TDMRep Community Group Final Report (2024); invalid entries skipped",
    "noai": "DeviantArt noai / noimageai directives (2022); noimageai covers the page's images",
    "noml": "Mojeek's NoML proposal and open letter (Oct 2023, noml.info): noml",
    "noarchive-ai": (
        "noarchive as an AI-training opt-out: Bing Webmaster Blog (Sep 2023) and Amazon's "
        "Amazonbot page (developer.amazon.com/amazonbot)"
    ),
    "noarchive-ai-input": (
        "noarchive as an AI-input opt-out: Bing Webmaster Guidelines, rewritten Feb 2026 "
        "(Copilot responses and grounding results; read from a secondary source)"
    ),
    "nocache-ai": (
        "nocache read like noarchive, as an AI-training opt-out: Bing Webmaster Blog (Sep 2023)"
    ),
    "nosnippet-ai": (
        "nosnippet / max-snippet:0 as an AI-input opt-out: Google's robots meta tag "
        "specification (AI Overviews and AI Mode; its text as quoted by Search Engine "
        "Roundtable, 2025: a secondary source)"
    ),
    "index-on-files": (
        "noindex / noimageindex on a downloaded file as an AI opt-out: img2dataset's default "
        "disallowed_header_directives; Google's robots meta specification for their meaning"
    ),
    "iptc-data-mining": (
        "IPTC Photo Metadata Standard 2023.1 Data Mining (plus:DataMining); 2025.1 (its "
        "newest) changes nothing found in Data Mining"
    ),
    "cawg-training-mining": "CAWG Training and Data Mining assertion v1.1; C2PA 1.x",
    "rsl": (
        "RSL 1.0 Specification (RSL-SPEC-1.0, Recommendation, 2025-11-06; "
        "https://rslstandard.org/rsl) and its robots.txt / HTTP / HTML guides; errata: the "
        "primary errata page lists 2026-01-16, 2026-02-19, 2026-05-13 and 2026-05-27; what "
        "2026-01-16 says of group License lines is from secondary sources, and an erratum of "
        "2026-08-07 (extension elements ignored), which that page does not list, is known "
        "only from secondary sources"
    ),
}

#: Signals about AI use that sites give and the code does NOT read: (signal, what it is
#: and why it is not read). A recheck's summary lists them, so that a kept item is not
#: read as "no site said no" (docs/purpose-notes.md, 'Signals not read').
NOT_READ: Final[tuple[tuple[str, str], ...]] = (
    (
        "/ai.txt",
        "Spawning's site-wide file of media types allowed or refused for AI training: a "
        "vocabulary of its own, in no standard we follow",
    ),
    (
        "/llms.txt",
        "a Markdown guide to a site for language models: it offers content, it states no "
        "preference about its use",
    ),
    (
        "LLM-Policy:",
        "a robots.txt line (read by crawler-commons 1.7) naming a policy document for "
        "language models, as llms.txt is: a pointer to prose, no preference a crawl can "
        "decide by",
    ),
    (
        "/.well-known/ai.txt",
        "draft-car-ai-txt-wellknown-00 (June 2026, an individual draft adopted by no working "
        "group): AI-usage preferences, licences and per-agent rules in a format of its own; "
        "the AIPREF vocabulary it may carry is read where AIPREF attaches it (robots.txt "
        "Content-Usage, the header)",
    ),
    (
        "terms of service",
        "a site's terms or licence page in prose: no machine-readable statement a crawl can "
        "decide by (RSL licenses are read)",
    ),
    (
        '<meta name="content-signal">',
        "Content Signals in an HTML meta tag: the policy we follow is read from robots.txt "
        "and the Content-Signal response header only",
    ),
)
