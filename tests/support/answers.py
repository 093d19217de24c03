"""What a decision says, as the tuples the tests compare."""

from __future__ import annotations

from typing import Any

from scrapy_rep.usage.purpose import PURPOSES


def purpose_answers(decision: Any) -> tuple[bool | None, ...]:
    """Whether ``decision`` allows each purpose, in :data:`PURPOSES` order (search,
    ai-train, ai-input): ``None`` where nothing said."""
    return tuple(decision.allowed(purpose) for purpose in PURPOSES)
