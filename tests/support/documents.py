"""Documents (robots.txt, tdmrep.json and RSL bodies) that test modules of more than one
folder read or serve."""

from __future__ import annotations

from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP
from rep_engine.fetch.rsl_kind import RSL

#: Cloudflare's managed robots.txt (its default from 2026-09-15): a Content-Signal with a
#: ``use=`` condition.
CLOUDFLARE_USE_REFERENCE = (
    "User-agent: *\nContent-Signal: search=yes,ai-train=no,use=reference\nAllow: /\n"
)

#: draft-ietf-aipref-attach-05 §3.4 "Example" (Figure 2), verbatim.
ATTACH_EXAMPLE = """\
User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
"""

#: A robots.txt whose rules are written encoded (escapes, a non-ASCII character, a ``*``
#: and a ``$``), and the paths asked of it: those the hot paths' inline normalising test
#: (:func:`~rep_engine.urls.encoding.matched_as_given`) must send to normalising (an
#: escape, a non-ASCII character, a ``*`` or ``$`` the profile encodes), and plain ones.
ENCODED_RULES = b"""User-agent: *
Disallow: /%7Ea
Disallow: /caf%C3%A9
Disallow: /star%2Ax
Disallow: /dollar%24
Allow: /%7Ea/ok
"""
ENCODED_PATHS = ("/~a", "/%7ea/x", "/%7Ea/ok", "/café", "/caf%c3%a9", "/star*x", "/dollar$",
                 "/plain", "/robots.txt")  # fmt: skip

#: A body of each kind of per-origin document whose rules refuse ``/private``.
KIND_BODIES = {
    ROBOTS_TXT.name: b"User-agent: *\nDisallow: /private\n",
    TDMREP.name: b'[{"location": "/private", "tdm-reservation": 1}]',
    RSL.name: (
        b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/private"><license>'
        b'<prohibits type="usage">ai-train</prohibits></license></content></rsl>'
    ),
}


def rsl_license(body: str, content: str = '<content url="/">') -> bytes:
    """An RSL document whose ``content`` holds one license of ``body`` (its usage
    elements, its payment...)."""
    text = f'<rsl xmlns="https://rslstandard.org/rsl">{content}<license>{body}</license>'
    return (text + "</content></rsl>").encode()
