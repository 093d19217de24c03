"""Named, dated, sourced lists of AI crawler names for ``REP_PURPOSE_AGENTS`` (pure).

An entry ``"preset:NAME"`` of ``REP_PURPOSE_AGENTS`` stands for the product tokens of the
preset ``NAME`` (:data:`PRESETS`); the settings reader expands it in place
(:func:`rep_engine.settings.readers.read_purpose_agents`), and the audit trail's run
header names every preset used with its date and source (:func:`presets_used`). A list
goes in here only as its source wrote it (docs/decisions.md, 'Crawler-name presets'); a
newer list is a new preset, so a trail's name keeps meaning what it meant.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

#: How an entry of ``REP_PURPOSE_AGENTS`` names a preset.
PREFIX: Final = "preset:"


@dataclass(frozen=True, slots=True)
class AgentPreset:
    """One list of crawler names, as its source wrote it."""

    name: str
    #: When the list was as given here (a date, or what is known of it).
    date: str
    #: Where the names come from: document or repository, path, version.
    source: str
    #: The product tokens the preset stands for, in the source's order.
    names: tuple[str, ...]
    #: What of the source's list is not here, and why.
    note: str = ""

    def header(self) -> dict[str, Any]:
        """The preset as a run header records it."""
        return {"name": self.name, "date": self.date, "source": self.source,
                "names": list(self.names), "note": self.note}  # fmt: skip


_APERTUS = AgentPreset(
    "apertus-0943bfd",
    "as of commit 0943bfd of swiss-ai/pretrain-data, read 2026-11-26 (the commit's own date "
    "not known here; the filter ran over robots.txt files as of January 2025)",
    "swiss-ai/pretrain-data src/data_pipeline_pretrain/pipeline/filters/robots_filter.py, "
    "_DEFAULT_REMOVE_USER_AGENTS (commit 0943bfdaf27a8d243a1034b1f6c9d827345542ac): the "
    "names the Apertus models' robots.txt filter checked",
    (
        "AI2Bot",
        "Applebot-Extended",
        "Bytespider",
        "CCBot",
        "ClaudeBot",
        "cohere-training-data-crawler",
        "Diffbot",
        "FacebookBot",
        "Meta-ExternalAgent",
        "Google-Extended",
        "GPTBot",
        "PanguBot",
    ),
    "the source's 15 entries less CCBot/2.0 and CCBot/1.0 (the product token CCBot, already "
    "listed) and * (no crawler's name: the crawl obeys the * group when robots.txt has no "
    "group of its own for it, RFC 9309 §2.2.1, where the filter checked * always)",
)

#: Every preset, by name.
PRESETS: Final[Mapping[str, AgentPreset]] = MappingProxyType({_APERTUS.name: _APERTUS})


def preset_name(entry: str) -> str | None:
    """The preset an entry of ``REP_PURPOSE_AGENTS`` names (``None``: a product token)."""
    if entry[: len(PREFIX)].lower() != PREFIX:
        return None
    return entry[len(PREFIX) :].strip().lower()


def expand(entries: Iterable[str]) -> tuple[str, ...]:
    """``entries`` with each preset replaced by its names, each name once (the first time
    it comes). Raises ``KeyError`` naming the first unknown preset."""
    names: list[str] = []
    for entry in entries:
        name = preset_name(entry)
        if name is None:
            names.append(entry)
        elif name in PRESETS:
            names.extend(PRESETS[name].names)
        else:
            raise KeyError(entry)
    return tuple(dict.fromkeys(names))


def presets_used(entries: Iterable[str]) -> list[AgentPreset]:
    """The known presets ``entries`` name, in their order, each once."""
    found = [PRESETS.get(preset_name(entry) or "") for entry in entries]
    return list(dict.fromkeys(p for p in found if p is not None))
