"""What the robots.txt engine answers (SPEC §5): a :class:`Decision` for a URL, the
:class:`ContentSignals` of a group. Pure values; :mod:`rep_engine.robotstxt` re-exports
them, their import path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Decision:
    """The verdict for one URL and the robots.txt line that gave it."""

    allowed: bool
    #: 1-based line number of the deciding rule, ``None`` when no rule applied.
    line: int | None = None
    #: ``"allow"`` or ``"disallow"``, ``None`` when no rule applied.
    rule: Literal["allow", "disallow"] | None = None
    #: The pattern as written in the file.
    pattern: str | None = None
    #: The rule's line as written, without its comment (``Disallow: /private``).
    line_text: str | None = None
    #: Why there is no rule, e.g. "no group for this agent"; "" when a rule decided.
    reason: str = ""

    @property
    def explanation(self) -> str:
        """``"line 9: Disallow: /x"`` when a rule decided, else the reason (SPEC §5 messages)."""
        if self.line is None:
            return self.reason
        return f"line {self.line}: {self.line_text}"

    def __str__(self) -> str:
        verdict = "allowed" if self.allowed else "disallowed"
        if self.line is None:
            return f"{verdict} ({self.reason})" if self.reason else verdict
        return f"{verdict} by {self.explanation}"


@dataclass(frozen=True)
class ContentSignals:
    """The Content Signals of a group (``Content-Signal: search=yes, ai-train=no``)."""

    search: bool | None = None
    ai_input: bool | None = None
    ai_train: bool | None = None
    #: Cloudflare's ``use=`` level (``immediate``, ``reference``, ``full``), the most
    #: restrictive one when several apply; ``None`` when absent.
    use: str | None = None
    #: The 1-based number of the robots.txt line that says it; 0 when several lines (or
    #: a response header) said it.
    line: int = 0
