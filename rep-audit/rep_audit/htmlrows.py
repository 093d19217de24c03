"""The HTML report's table rows (pure): one per ``url`` record (its state, what decided
it, the robots.txt line) and one per recheck's item; every string read from the trail
escaped (:func:`html_text`) and written as text. :mod:`rep_audit.html` draws the
page around them."""

from __future__ import annotations

import re
from html import escape
from typing import Any, Final

from rep_audit.faterecord import FateRecord
from rep_audit.summary import with_file
from rep_engine.records import ItemRecord, ItemStatus, denied_purposes, describe
from rep_engine.trail.terminal import printable


def html_text(value: Any) -> str:
    """Text as HTML: control characters and bidi controls as visible escapes, then
    :func:`html.escape`."""
    return escape(printable("" if value is None else value), quote=True)


#: Where a long URL may break: after these characters.
_BREAKS: Final = re.compile(r"(?<=[/?&=#;,.\-_])")


def url_html(url: Any) -> str:
    """A URL as text that wraps after ``/ ? & = # ; , . - _`` (``<wbr>``), not mid-word
    (a CSS fallback breaks a word too long for its cell anywhere)."""
    return "<wbr>".join(html_text(piece) for piece in _BREAKS.split(printable(url or "")))


def row_html(
    number: int | str,
    record: FateRecord,
    purposes: list[str],
    file: FateRecord | None = None,
) -> str:
    """One table row for one ``url`` record (``file``: the ``file`` record that refused
    its download, :meth:`Summary.file_of`), in the words of
    :func:`~rep_engine.records.describe`: its state (its fate, or ``fetched, item dropped``
    for a fetched page whose items were dropped after the fetch, ``fetched, file refused``
    or ``marked`` for a file the media gate refused) and its colour, what refused it, what
    decided it, the robots.txt line."""
    said = describe(with_file(record, file), purposes)
    shown = said.state or record.written  # a fate that is no word of ours: as written
    denied = denied_purposes(record.entry.usage, tuple(purposes))
    asked = ", ".join(p + (" (denied)" if p in denied else "") for p in purposes)
    why = f' title="{html_text(said.why)}"' if said.why else ""
    tds = [
        f"<td>{html_text(number)}</td>",
        f'<td class="time">{html_text(record.time)}</td>',
        f'<td class="run" title="{html_text(record.run)}">{html_text(record.run[:8])}</td>',
        f"<td>{html_text(asked)}</td>",
        f'<td class="url">{url_html(record.entry.url)}</td>',
        # the fate cell shows the record's ``why`` on hover
        f'<td class="fate"{why}><span class="{said.colour}"></span>{html_text(shown)}</td>',
        f"<td>{html_text(said.reason)}</td>",
        f'<td class="said">{html_text(said.signal)}</td>',
        f"<td>{url_html(said.rule)}</td>",
        *(f"<td>{html_text(n)}</td>" for n in (record.entry.status, *_items(record))),
        f"<td>{url_html(record.origin)}</td>",
    ]
    return f"<tr>{''.join(tds)}</tr>"


def _items(record: FateRecord) -> tuple[int | None, int | None]:
    """Its page's items kept and dropped (``None``: no page pass read it)."""
    output = record.entry.output
    return (None, None) if output is None else (output.kept, output.items_dropped)


ITEM_HEADS: Final = (
    "line", "time", "run", "URL", "dataset line", "status", "reason", "decided by", "why",
    "robots.txt", "snapshots", "origin",
)  # fmt: skip


def item_row_html(number: int | str, item: ItemRecord) -> str:
    """One table row for a recheck's item (:class:`~rep_engine.records.ItemRecord`):
    its status, what decided it, the robots.txt line and the snapshots it names."""
    robots = item.robots
    rule = f"line {robots.line}: {robots.rule}" if robots.line is not None else ""
    documents = ", ".join(f"{name} {sha[:12] or 'not had'}" for name, sha in item.documents)
    status = ItemStatus.of(item.status)
    tds = [
        f"<td>{html_text(number)}</td>",
        f'<td class="time">{html_text(item.time)}</td>',
        f'<td class="run" title="{html_text(item.run)}">{html_text(item.run[:8])}</td>',
        f'<td class="url">{url_html(item.url)}</td>',
        f"<td>{html_text(item.line)}</td>",
        f'<td class="fate"><span class="{status.colour if status else "other"}"></span>'
        f"{html_text(item.status)}</td>",
        f"<td>{html_text(item.reason)}</td>",
        f'<td class="said">{html_text(item.decided)}</td>',
        f'<td class="said">{html_text(item.why)}</td>',
        f"<td>{url_html(rule or robots.why)}</td>",
        f'<td class="said">{html_text(documents)}</td>',
        f"<td>{url_html(item.origin)}</td>",
    ]
    return f"<tr>{''.join(tds)}</tr>"


HEADS: Final = (
    "line", "time", "run", "purposes", "URL", "fate", "reason", "deciding signal",
    "robots.txt", "status", "kept", "dropped", "origin",
)  # fmt: skip
