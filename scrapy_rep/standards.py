"""The revision of each standard the code follows, in one place (pure).

The docs, the end-of-crawl report and the audit trail's run header read this table, so
what they say the crawl followed is what the code follows. Update a row in the same
commit that moves the code to a newer revision.
"""

from __future__ import annotations

from typing import Final

#: Standard -> the revision followed (and where it is read).
STANDARDS: Final[dict[str, str]] = {
    "robots.txt": "RFC 9309 (Sep 2022), read as Google's open-source parser reads it",
    "robots meta / X-Robots-Tag": "Google Search Central robots meta tag specification",
    "aipref-vocab": "draft-ietf-aipref-vocab-07",
    "aipref-attach": "draft-ietf-aipref-attach-05 (§3: Content-Usage is a rule of its group)",
    "content-signal": "Cloudflare Content Signals Policy",
    "tdmrep": "W3C TDMRep Community Group Final Report (2024); invalid entries skipped",
    "noai": "DeviantArt noai / noimageai directives (2022)",
}
