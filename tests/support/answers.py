"""What a decision says, as the tuples the tests compare."""

from __future__ import annotations

from typing import Any

from rep_engine.robotstxt import parse_robotstxt
from rep_engine.robotstxt.aipref import UsagePrefs
from rep_engine.usage.purpose import PURPOSES


def purpose_answers(decision: Any) -> tuple[bool | None, ...]:
    """Whether ``decision`` allows each purpose, in :data:`PURPOSES` order (search,
    ai-train, ai-input): ``None`` where nothing said."""
    return tuple(decision.allowed(purpose) for purpose in PURPOSES)


def train_ai_and_search(prefs: UsagePrefs) -> tuple[bool | None, bool | None]:
    """What a statement of preference says of ``train-ai`` and ``search``."""
    return prefs.train_ai, prefs.search


def disallow_forbids(pattern: str, path: str, profile: str, origin: str) -> bool:
    """Does ``Disallow: pattern`` forbid ``path`` (of ``origin``) under ``profile``?"""
    robots = parse_robotstxt(f"User-agent: *\nDisallow: {pattern}\n", profile)
    return not robots.allowed(origin + path, "mybot")
