"""The lines of a cut robots.txt that are read (SPEC §1). Pure: :func:`without_open_group`
gives the lines allow/disallow are read from, :func:`with_open_usage_group` those the
AI-usage statements are read from, when more.
"""

from __future__ import annotations

from typing import Final

from rep_engine.robotstxt._lines import (
    _ALLOW,
    _ALLOW_AI,
    _CONTENT_USAGE,
    _DISALLOW,
    _DISALLOW_AI,
    _KEYS,
    _LENIENT_KEYS,
    _LICENSE,
    _SITEMAP,
    _USAGE_KINDS,
    _USER_AGENT,
    _WHITESPACE,
    _kind_of,
    two_words,
)
from rep_engine.robotstxt.useragent import is_global_agent

#: The keys of the rules that make a group not empty, per profile (lenient: Google's
#: reading, which keeps the AI-training rules as Allow / Disallow rules of its group).
_GROUP_RULES: Final = {
    False: (_ALLOW, _DISALLOW),
    True: (_ALLOW, _DISALLOW, _ALLOW_AI, _DISALLOW_AI),
}


def without_open_group(lines: list[str], lenient: bool) -> list[str]:
    """The lines of a cut document without its last group when no rule of it was read:
    from the first user-agent line after the last rule on (a run of user-agent lines
    the cut may have parted from its rules). Read, it would be an empty group, which
    allows its crawlers everything and sets the ``*`` group aside; dropped, they fall
    back to the groups read whole (docs/decisions.md, 'A cut robots.txt reads no part
    of a line that could allow'). A rule is a line the profile reads as an allow or
    disallow rule of its group (an empty one is ignored, and counts for nothing); the
    lines are those the parser reads (comments, NUL ends and the line limit applied).
    Only from the first user-agent line there that names a crawler (not ``*``) are they
    dropped: a ``*`` group with no rule read adds no rule to the ``*`` group, so its
    lines (``Content-Usage``, ``Content-Signal``, ``Crawl-delay``) are read as written,
    and dropped they would lose its "no" for every crawler without a group of its own.
    The ``Sitemap`` and ``License`` lines among those dropped are kept: they belong to no
    group (RSL's guide: a ``License`` line is "global (not tied to any specific user
    agent)"), and a whole one dropped would lose an RSL license and its "no"."""
    keys = _LENIENT_KEYS if lenient else _KEYS
    return _up_to(lines, _rules_end(lines, keys, lenient), keys, lenient)


def with_open_usage_group(
    lines: list[str], lenient: bool, blank_ends: bool = False
) -> list[str] | None:
    """The lines of a cut document that its AI-usage statements are read from, when they
    are more than :func:`without_open_group` keeps: a named crawler's last group, dropped
    for allow/disallow (no rule of that kind read), is kept up to its last
    ``Content-Usage``, ``Content-Signal`` or AI-training line, whole lines the site wrote
    in that group (attach-05 §3 groups them by the user-agent lines above them). Dropped
    with the group, their "no"s were lost for its crawlers, who fell back to the ``*``
    group's statements. A last run of user-agent lines with no such line read after it
    is dropped here too (an empty usage group would set the ``*`` group's statements
    aside), unless it goes on the group of those lines (:func:`_usage_group_end`).
    ``None``: the same lines as :func:`without_open_group`."""
    keys = _LENIENT_KEYS if lenient else _KEYS
    usage_end = _open_group(lines, keys, lenient, _USAGE_KINDS)
    usage_end = _usage_group_end(lines, usage_end, keys, lenient, blank_ends)
    if usage_end <= _rules_end(lines, keys, lenient):
        return None
    return _up_to(lines, usage_end, keys, lenient)


#: The keys whose line ends a run of user-agent lines for the usage grouping (any value).
_USAGE_ENDS: Final = (_ALLOW, _DISALLOW, _CONTENT_USAGE, _ALLOW_AI, _DISALLOW_AI)


def _usage_group_end(
    lines: list[str], end: int, keys: dict[str, int], lenient: bool, blank_ends: bool
) -> int:
    """From the user-agent line at ``end``, the first that starts a usage group of its
    own: as the parser groups them, a user-agent line after a ``Content-Signal`` line
    (which ends no run, RFC 9309 §2.2.4) goes on its group, and its statements are that
    crawler's too; a Content-Usage, AI-training, allow or disallow line (or with
    ``blank_ends`` a blank line) ends the run, and the next user-agent line starts one."""
    before = (_run_state(lines[i], keys, lenient, blank_ends) for i in range(end - 1, -1, -1))
    going_on = next((state for state in before if state is not None), False)
    for index in range(end, len(lines)):
        state = _run_state(lines[index], keys, lenient, blank_ends)
        if state and not going_on:
            return index
        going_on = going_on if state is None else state
    return len(lines)


def _run_state(line: str, keys: dict[str, int], lenient: bool, blank_ends: bool) -> bool | None:
    """``True``: a user-agent line (a run is open after it); ``False``: a line that ends
    the usage grouping's run; ``None``: neither."""
    if blank_ends and "#" not in line and not line.strip(_WHITESPACE):
        return False
    read = _key_and_value(line, keys, lenient)
    if read is None:
        return None
    return True if read[0] == _USER_AGENT else (False if read[0] in _USAGE_ENDS else None)


def _rules_end(lines: list[str], keys: dict[str, int], lenient: bool) -> int:
    """Where :func:`without_open_group` drops ``lines`` from: the first user-agent line
    naming a crawler (not ``*``) at or after the first one past the last rule read."""
    for index in range(_open_group(lines, keys, lenient, _GROUP_RULES[lenient]), len(lines)):
        read = _key_and_value(lines[index], keys, lenient)
        if read is not None and read[0] == _USER_AGENT and not is_global_agent(read[1]):
            return index
    return len(lines)


def _open_group(
    lines: list[str], keys: dict[str, int], lenient: bool, kinds: tuple[int, ...]
) -> int:
    """The index of the first user-agent line after the last line of a kind in ``kinds``
    with a value (``len(lines)``: none follows it)."""
    end = len(lines)
    for index in range(len(lines) - 1, -1, -1):
        read = _key_and_value(lines[index], keys, lenient)
        if read is None:
            continue
        kind, value = read
        if kind in kinds and value:
            break
        if kind == _USER_AGENT:
            end = index
    return end


def _up_to(lines: list[str], end: int, keys: dict[str, int], lenient: bool) -> list[str]:
    """``lines`` up to ``end``, then the lines after it that belong to no group
    (``lines`` itself when ``end`` is its end)."""
    if end == len(lines):
        return lines
    global_lines = [line for line in lines[end:] if _is_global(line, keys, lenient)]
    return lines[:end] + global_lines


def _key_and_value(line: str, keys: dict[str, int], lenient: bool) -> tuple[int, str] | None:
    """The kind of a line's key and its value (stripped) as the parser reads them;
    ``None`` for a line it skips (no colon, and not Google's two words)."""
    line = line.partition("#")[0]
    key, colon, value = line.partition(":")
    if not colon:
        pair = two_words(key.strip(_WHITESPACE)) if lenient else None
        if pair is None:  # skipped, as the parser does
            return None
        key, value = pair
    return _kind_of(key.strip(_WHITESPACE), keys, lenient), value.strip(_WHITESPACE)


def _is_global(line: str, keys: dict[str, int], lenient: bool) -> bool:
    """Whether the parser reads ``line`` as a record of no group (``Sitemap``, ``License``)."""
    read = _key_and_value(line, keys, lenient)
    return read is not None and read[0] in (_SITEMAP, _LICENSE)
