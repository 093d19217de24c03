"""The elements of a top-level JSON array, decoded one at a time (for tdmrep.json).

Pure, standard library only. Decoding element by element lets a body cut at 500 KiB keep
the elements wholly inside the cut (docs/purpose-notes.md, choice 8).
"""

from __future__ import annotations

import json
from typing import Final

_JSON_WHITESPACE: Final = " \t\n\r"


def array_items(text: str, truncated: bool) -> tuple[list[object] | None, str]:
    """The elements of a top-level JSON array, decoded one at a time.

    Returns (elements, problem). ``None`` elements: the file says nothing. When the body
    was cut at 500 KiB, the elements before the first one that does not decode are kept.
    """
    decoder = json.JSONDecoder()
    position = _skip(text, 0)
    if not text.startswith("[", position):
        if truncated:
            return None, "cut at 500 KiB before any entry"
        try:
            json.loads(text)
        except (ValueError, RecursionError) as error:
            return None, f"not JSON ({error})"
        return None, "not a JSON array"
    items: list[object] = []
    position = _skip(text, position + 1)
    if text.startswith("]", position):
        return _end(items, text, position + 1)
    while True:
        try:
            item, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError) as error:
            if truncated:
                return items, f"cut at 500 KiB: {len(items)} entries kept"
            return None, f"not JSON ({error})"
        items.append(item)
        position = _skip(text, position)
        if text.startswith("]", position):
            return _end(items, text, position + 1)
        if not text.startswith(",", position):
            if truncated and position >= len(text):
                return items, f"cut at 500 KiB: {len(items)} entries kept"
            return None, f"not JSON (expected ',' or ']' at {position})"
        position = _skip(text, position + 1)


def _end(items: list[object], text: str, position: int) -> tuple[list[object] | None, str]:
    if _skip(text, position) != len(text):
        return None, f"not JSON (extra data after the array at {position})"
    return items, ""


def _skip(text: str, position: int) -> int:
    length = len(text)
    while position < length and text[position] in _JSON_WHITESPACE:
        position += 1
    return position
