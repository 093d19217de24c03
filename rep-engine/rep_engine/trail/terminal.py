"""Text from a trail made safe for a terminal, and the tools' exit-code tables (pure).

A trail holds what crawled sites sent: a header value with ESC or BEL could retitle or
clear the terminal of whoever runs ``audit show``, a CR or LF inside a value could print a
fake line of output, a bidi override could reorder what is read. :func:`printable` writes
every such character as a visible escape (``\\x1b``, ``\\r``, ``\\u202e``); every text output
of the trail tools (``show``, ``summary``, ``verify``'s findings, ``report``'s and
``repair``'s lines, their errors, ``scrapy rep-audit``) passes through it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from typing import Final, TextIO

#: Code points written as escapes: C0 controls, DEL, C1 controls, the bidirectional
#: controls (embeddings, overrides, isolates, marks), the line and paragraph separators,
#: and lone surrogates (which cannot be written as UTF-8 at all).
UNSAFE: Final = frozenset(
    [
        *range(0x00, 0x20),
        *range(0x7F, 0xA0),
        0x061C,  # ARABIC LETTER MARK
        0x200E,  # LEFT-TO-RIGHT MARK
        0x200F,  # RIGHT-TO-LEFT MARK
        *range(0x202A, 0x202F),  # LRE, RLE, PDF, LRO, RLO
        *range(0x2066, 0x206A),  # LRI, RLI, FSI, PDI
        0x2028,  # LINE SEPARATOR
        0x2029,  # PARAGRAPH SEPARATOR
        *range(0xD800, 0xE000),
    ]
)
_NAMED: Final = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _escape(code: int) -> str:
    if code in _NAMED:
        return _NAMED[code]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_TABLE: Final = {code: _escape(code) for code in UNSAFE}


def printable(value: object) -> str:
    """``str(value)`` with every :data:`UNSAFE` character written as an escape; the rest
    (other non-ASCII text included) unchanged. Idempotent: its output has none left."""
    return str(value).translate(_TABLE)


def write_lines(lines: Iterable[object], out: TextIO) -> None:
    """Print each line made :func:`printable` (one output line each)."""
    for line in lines:
        print(printable(line), file=out)


#: The width every tool's help text fits in (a terminal's 80 columns).
HELP_WIDTH: Final = 80


def exit_table(title: str, rows: Mapping[int | str, str]) -> str:
    """A tool's exit codes as its ``--help`` shows them: ``title``, then each code and
    what it means, wrapped to :data:`HELP_WIDTH` under its text (``audit``'s, ``check``'s
    and ``rep-robots``'s, ``recheck``'s)."""
    lines = [title]
    for code, meaning in rows.items():
        lines += textwrap.wrap(
            f"{code}  {meaning}", width=HELP_WIDTH, initial_indent="  ", subsequent_indent="     "
        )
    return "\n".join(lines)
