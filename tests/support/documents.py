"""Documents (robots.txt bodies) that test modules of more than one folder read or serve."""

from __future__ import annotations

#: Cloudflare's managed robots.txt (its default from 2026-09-15): a Content-Signal with a
#: ``use=`` condition.
CLOUDFLARE_MANAGED = (
    "User-agent: *\nContent-Signal: search=yes,ai-train=no,use=reference\nAllow: /\n"
)
