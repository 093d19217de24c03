"""A slow, obviously-correct reference for robots.txt rule matching (SPEC §1 and §2).

Written from SPEC.md, independently of ``scrapy_rep``: no regular expressions, no
shortcuts, only a textbook dynamic-programming wildcard match and a linear scan over the
rules. It is meant for short patterns and paths (Hypothesis tests over a small alphabet);
its cost is O(len(pattern) × len(path)) per rule.
"""

from __future__ import annotations

from dataclasses import dataclass

HEX_DIGITS = "0123456789abcdefABCDEF"


@dataclass(frozen=True)
class RefRule:
    """One ``allow``/``disallow`` line of a group, in file order."""

    allow: bool
    pattern: str


def normalise_pattern(pattern: str) -> str:
    """SPEC §1 "Percent-encoding" and "a pattern that does not start with `/` or `*`".

    - a pattern not starting with ``/`` or ``*`` is read as starting with ``/``;
    - an existing ``%xx`` escape gets uppercase hex;
    - non-ASCII characters are percent-encoded as UTF-8 (uppercase hex);
    - ASCII characters, spaces included, stay as they are.
    """
    if not pattern.startswith(("/", "*")):
        pattern = "/" + pattern
    return percent_encode(pattern)


def percent_encode(text: str) -> str:
    """Escapes with uppercase hex, non-ASCII characters percent-encoded as UTF-8."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        escape = text[i + 1 : i + 3]
        if char == "%" and len(escape) == 2 and all(c in HEX_DIGITS for c in escape):
            out.append("%" + escape.upper())
            i += 3
            continue
        if ord(char) > 127:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        else:
            out.append(char)
        i += 1
    return "".join(out)


def normalise_url(path: str) -> str:
    """SPEC §1 "Percent-encoding", URL side: as for patterns (RFC 3986 §2.1: ``%c3`` and
    ``%C3`` are the same octet), without the leading-slash rule."""
    return percent_encode(path)


def wildcard_matches(pattern: str, path: str) -> bool:
    """Does ``pattern`` match the start of ``path`` (``*`` any run, final ``$`` = end)?

    ``match[i][j]`` is True when ``pattern[:i]`` matches ``path[:j]`` exactly. A ``$``
    anywhere but at the very end of the pattern is an ordinary character.
    """
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    if "*" not in body:  # the table below, for a pattern without a wildcard
        return path == body if anchored else path.startswith(body)
    rows, cols = len(body), len(path)
    match = [[False] * (cols + 1) for _ in range(rows + 1)]
    match[0][0] = True
    for i in range(1, rows + 1):
        char = body[i - 1]
        for j in range(cols + 1):
            if char == "*":
                # zero characters (match[i-1][j]) or one more (match[i][j-1])
                match[i][j] = match[i - 1][j] or (j > 0 and match[i][j - 1])
            else:
                match[i][j] = j > 0 and match[i - 1][j - 1] and path[j - 1] == char
    if anchored:
        return match[rows][cols]
    return any(match[rows][j] for j in range(cols + 1))


def prefix_matches(pattern: str, path: str) -> bool:
    """Legacy (1994/1996) matching: the pattern is a plain prefix, `*` and `$` literal,
    both compared as the 1996 draft §3.2.2 compares them (:func:`legacy_octets`)."""
    return legacy_octets(path).startswith(legacy_octets(pattern))


def legacy_octets(text: str) -> str:
    """1996 draft §3.2.2: "If a %xx encoded octet is encountered it is unencoded prior to
    comparison, unless it is the "/" character". An escape of a printable ASCII character
    stands for that character; ``%2F``, ``%25`` (so that no new escape appears) and the
    others stay escapes, with uppercase hex. ``*`` and ``$``, plain characters here, are
    written as their escapes, the form RFC 9309 §2.2.3 gives them (both forms are one
    octet). A ``%`` that starts no escape stays as it is."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        escape = text[i + 1 : i + 3]
        if char == "%" and len(escape) == 2 and all(c in HEX_DIGITS for c in escape):
            octet = chr(int(escape, 16))
            if " " <= octet <= "~" and octet not in "/%*$":
                out.append(octet)
            else:
                out.append("%" + escape.upper())
            i += 3
            continue
        out.append({"*": "%2A", "$": "%24"}.get(char, char))
        i += 1
    return "".join(out)


def longest_match_allowed(rules: list[RefRule], path: str) -> bool:
    """Google / RFC 9309: the longest matching pattern (in bytes) wins; allow wins ties.

    Empty patterns are ignored; no matching rule means allowed.
    """
    best_length = -1
    best_allow = True
    for rule in rules:
        if not rule.pattern:
            continue
        pattern = normalise_pattern(rule.pattern)
        if not google_matches(rule.pattern, path):
            continue
        length = len(pattern.encode("utf-8"))
        if length > best_length or (length == best_length and rule.allow):
            best_length, best_allow = length, rule.allow
    return best_allow


def first_match_allowed(rules: list[RefRule], path: str) -> bool:
    """Legacy: the first rule in file order whose pattern is a prefix of the path decides."""
    for rule in rules:
        if not rule.pattern:
            continue
        pattern = rule.pattern if rule.pattern.startswith("/") else "/" + rule.pattern
        if prefix_matches(pattern, path):
            return rule.allow
    return True


def robots_txt(rules: list[RefRule], agent: str = "*") -> str:
    """The robots.txt text of one group holding ``rules``."""
    lines = [f"User-agent: {agent}"]
    lines.extend(f"{'Allow' if rule.allow else 'Disallow'}: {rule.pattern}" for rule in rules)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# Percent-encoding, RFC 9309 §2.2.2 (profile "rfc9309")
# ---------------------------------------------------------------------------------------

UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def decode_unreserved(text: str) -> str:
    """Decode every ``%xx`` escape (either hex case) of an unreserved character."""
    out: list[str] = []
    i = 0
    while i < len(text):
        escape = text[i + 1 : i + 3]
        if (
            text[i] == "%"
            and len(escape) == 2
            and all(c in HEX_DIGITS for c in escape)
            and chr(int(escape, 16)) in UNRESERVED
        ):
            out.append(chr(int(escape, 16)))
            i += 3
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def rfc9309_special_as_escape(text: str, keep_final_dollar: bool) -> str:
    """RFC 9309 §2.2.3: a ``*`` or ``$`` matched verbatim is written ``%2A`` / ``%24``.
    In a URL every one is; in a pattern only a ``$`` before the end (``*`` is always the
    wildcard, a final ``$`` the anchor)."""
    out = []
    for index, char in enumerate(text):
        last = index == len(text) - 1
        if char == "*" and not keep_final_dollar:
            out.append("%2A")
        elif char == "$" and not (keep_final_dollar and last):
            out.append("%24")
        else:
            out.append(char)
    return "".join(out)


def rfc9309_disallowed(patterns: list[str], path: str) -> bool:
    """Does any of the (disallow) ``patterns`` match ``path`` under RFC 9309 encoding?"""
    target = rfc9309_special_as_escape(decode_unreserved(normalise_url(path)), False)
    return any(
        wildcard_matches(candidate, target)
        for pattern in patterns
        if pattern
        for candidate in dangling_candidates(
            rfc9309_special_as_escape(decode_unreserved(normalise_pattern(pattern)), True)
        )
    )


def dangling_candidates(pattern: str) -> list[str]:
    """``pattern`` and, for each dangling escape in it (``%`` and one lowercase hex digit
    at the end or before ``*``), the candidates with that digit uppercased: ``/%a`` keeps
    its "no" for the URL's ``/%ab``, which is matched as ``/%AB``. Only the first two
    (more is hostile: 2**n candidates); the others are matched as written."""
    candidates = [pattern]
    for i in range(len(pattern) - 1):
        follows = pattern[i + 2 : i + 3]
        if pattern[i] == "%" and pattern[i + 1] in "abcdef" and follows in ("", "*"):
            if len(candidates) == 4:
                break
            candidates += [c[: i + 1] + c[i + 1].upper() + c[i + 2 :] for c in candidates]
    return candidates


def google_matches(pattern: str, path: str) -> bool:
    """Does ``pattern`` match ``path``, both with their escapes uppercased (SPEC §1)? A
    dangling escape (``%`` and one lowercase hex digit at the end or before ``*``) also
    matches with that digit uppercased: ``/%a`` keeps its "no" for the URL's ``/%ab``,
    which is matched as ``/%AB``."""
    target = normalise_url(path)
    candidates = dangling_candidates(normalise_pattern(pattern))
    return any(wildcard_matches(candidate, target) for candidate in candidates)


def google_disallowed(patterns: list[str], path: str) -> bool:
    """Does any of the (disallow) ``patterns`` match ``path`` (:func:`google_matches`)?"""
    return any(google_matches(pattern, path) for pattern in patterns if pattern)


# ---------------------------------------------------------------------------------------
# Group selection (SPEC §1 "User-agent matching", §2 legacy row)
# ---------------------------------------------------------------------------------------

#: Characters that end a crawler name: ``*`` and the RFC 9110 delimiters (and whitespace).
TOKEN_ENDS = frozenset('*"(),/:;<=>?@[\\]{}')


def token(value: str) -> str:
    """The name up to the first whitespace, ``*`` or delimiter, lowercased."""
    run: list[str] = []
    for char in value.strip():
        if char.isspace() or char in TOKEN_ENDS:
            break
        run.append(char)
    return "".join(run).lower()


def is_global(value: str) -> bool:
    """``*`` followed by nothing or by whitespace."""
    value = value.strip()
    return value == "*" or (value.startswith("*") and value[1:2].isspace())


def google_groups(groups: list[list[str]], crawler: str) -> set[int]:
    """Indices of the groups that apply: every group naming the crawler's token, else
    every ``*`` group, else none. ``groups[i]`` is the list of user-agent values."""
    wanted = token(crawler)
    specific = {
        index
        for index, agents in enumerate(groups)
        if any(not is_global(agent) and token(agent) == wanted for agent in agents)
    }
    if specific:
        return specific
    return {index for index, agents in enumerate(groups) if any(map(is_global, agents))}


def legacy_groups(groups: list[list[str]], crawler: str) -> set[int]:
    """The first record whose name is a substring of the crawler's name, else the first
    ``*`` record, else none."""
    name = token(crawler)
    for index, agents in enumerate(groups):
        if any(not is_global(agent) and token(agent) and token(agent) in name for agent in agents):
            return {index}
    for index, agents in enumerate(groups):
        if any(map(is_global, agents)):
            return {index}
    return set()
