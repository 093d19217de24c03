"""``audit report --html FILE``: one self-contained HTML page of a trail (pure).

Everything is inline (CSS bars, a ten-line script, no font, no image, no CDN); a Content
Security Policy forbids the page any network access, so it works offline and a hostile
string in the trail cannot load anything. Every string read from the trail is escaped
with :func:`html.escape` and written as text, never as a link, an attribute the browser
acts on, or script. The search box filters the table; ``#q=text`` (or ``?q=text``) in the
page's address fills it in, so a filtered view can be linked. Its table's rows: one per
``url`` record (:func:`row_html`: its state, what decided it, the robots.txt line) and one
per recheck's item (:func:`item_row_html`), drawn as the trail is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import Any, Final

from rep_audit.findings import Verification
from rep_audit.runcontext import steering
from rep_audit.summary import Summary, Tally, items_line, unended, with_file
from rep_engine.records import (
    DROPPED_COLOUR,
    FATE_COLUMNS,
    ITEM_STATUSES,
    FateRecord,
    ItemRecord,
    ItemStatus,
    denied_purposes,
    describe,
    items,
)
from rep_engine.trail.terminal import printable

#: Table rows written at most (the counts above it always cover every record).
MAX_ROWS: Final = 10_000
#: Rows of each chart.
CHART_ROWS: Final = 15

_CSS: Final = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.totals{display:flex;gap:12px;flex-wrap:wrap}
.total{border:1px solid #ccc;border-radius:6px;padding:6px 10px;min-width:70px}
.total b{display:block;font-size:22px}
.chart{display:grid;grid-template-columns:minmax(120px,380px) 1fr 70px;gap:4px 8px;
 align-items:center;max-width:1100px}
.label{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.bar{display:flex;height:16px;background:#eee}
.bar span{display:block;height:100%}
.refused{background:#c0392b}.fetched{background:#27ae60}.other{background:#95a5a6}
.dropped{background:#e67e22}
.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px}
table{border-collapse:collapse;font-size:13px;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 5px;text-align:left;vertical-align:top;
 overflow-wrap:break-word}
th{background:#f4f4f4}td.url,td.said,td.ua{overflow-wrap:anywhere}
td.url{min-width:160px;max-width:420px}td.said{min-width:120px;max-width:300px}
td.ua{min-width:160px;max-width:260px}
td.time,td.run{white-space:nowrap;overflow-wrap:normal}
td.fate span{display:inline-block;width:10px;height:10px;margin-right:4px}
.scroll{overflow-x:auto;max-width:100%}
.ok{color:#1e7e34}.bad{color:#b00020}
input#q{font-size:14px;padding:4px 8px;width:380px}
"""
_SCRIPT: Final = """
(function(){var box=document.getElementById("q"),rows=document.querySelectorAll(
"#records tbody tr,#items tbody tr"),shown=document.getElementById("shown"),
table=document.getElementById("records");function apply(){var q=
box.value.toLowerCase(),n=0;for(var i=0;i<rows.length;i++){var hit=rows[i].textContent
.toLowerCase().indexOf(q)>=0;rows[i].hidden=!hit;if(hit)n++;}shown.textContent=String(n);
table.setAttribute("data-filter",box.value);}
var m=/[#?&]q=([^&]*)/.exec(location.hash+"&"+location.search.slice(1));if(m){try{
box.value=decodeURIComponent(m[1].replace(/\\+/g," "));}catch(e){box.value=m[1];}}
box.addEventListener("input",apply);apply();document.body.setAttribute("data-ready","1");})();
"""
_CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src 'none'; form-action 'none'; base-uri 'none'"
)


def _totals(summary: Summary) -> str:
    total = summary.total
    boxes = [
        ("requested URLs", total.requests),
        (FATE_COLUMNS["fetched"], total.fetched),
        (FATE_COLUMNS[DROPPED_COLOUR], total.fetched_dropped),
        (FATE_COLUMNS["refused"], total.refused),
        (FATE_COLUMNS["other"], total.other),
        ("items kept", total.kept),
        ("items dropped", total.dropped),
        ("runs", len(summary.runs)),
        ("snapshots", summary.snapshots),
    ]
    if total.not_kept:  # as audit summary says them: dropped by a later component
        boxes.insert(6, ("items not kept by a component of the crawl", total.not_kept))
    if summary.items.items:  # a recheck's items
        boxes.append(("items re-checked", summary.items.items))
        boxes += [(f"items re-checked, {status}", getattr(summary.items, status))
                  for status in ITEM_STATUSES]  # fmt: skip
    return "".join(
        f'<div class="total" id="total-{i}"><b>{n}</b>{html_text(label)}</div>'
        for i, (label, n) in enumerate(boxes)
    )


def _chart(chart_id: str, rows: Iterable[tuple[str, Tally]]) -> str:
    """Stacked CSS bars, one part per column of :data:`~rep_engine.records.FATE_COLUMNS`
    (refused, fetched, fetched with its items dropped, other), each as a share of the
    largest row."""
    chosen = sorted(rows, key=lambda item: (-item[1].requests, item[0]))[:CHART_ROWS]
    most = max((tally.requests for _, tally in chosen), default=0) or 1
    parts = [f'<div class="chart" id="{chart_id}">']
    for name, tally in chosen:
        counts = {"refused": tally.refused, "fetched": tally.fetched - tally.fetched_dropped,
                  DROPPED_COLOUR: tally.fetched_dropped, "other": tally.other}  # fmt: skip
        spans = "".join(
            f'<span class="{kind}" style="width:{100 * n / most:.2f}%" title="{n} {kind}"></span>'
            for kind in FATE_COLUMNS
            if (n := counts[kind])
        )
        parts.append(
            f'<div class="label" title="{html_text(name)}">{html_text(name)}</div>'
            f'<div class="bar">{spans}</div><div>{tally.requests}</div>'
        )
    parts.append("</div>")
    return "".join(parts)


def _run_cell(column: int, cell: Any) -> str:
    """A cell of the runs table: run ids (``run``, ``resumes``: 32 characters) shortened
    to 8, whole on hover; timestamps on one line; the rest wraps at separators (a spider
    name's ``_`` too)."""
    if column in (0, 8) and cell:
        return f'<td class="run" title="{html_text(cell)}">{html_text(str(cell)[:8])}</td>'
    if column in (1, 9):
        return f'<td class="time">{html_text(cell)}</td>'
    if column == 7:
        return f'<td class="ua">{url_html(cell)}</td>'
    return f"<td>{url_html(cell)}</td>"


def _runs(summary: Summary) -> str:
    """One row per run: its header and how it ended."""
    ends = {str(end.get("run")): end for end in summary.ends}
    rows = []
    for run in summary.runs:
        end = ends.get(str(run.get("run")), {})
        cells = [
            run.get("run"), run.get("time"), run.get("spider"), run.get("version"),
            ", ".join(map(str, items(run.get("purposes")))), run.get("profile"),
            ", ".join(map(str, items(run.get("agents")))), run.get("user_agent"),
            run.get("resumes") or "", end.get("time", unended(summary, run)),
            end.get("reason", ""),
        ]  # fmt: skip
        rows.append(f"<tr>{''.join(_run_cell(i, cell) for i, cell in enumerate(cells))}</tr>")
    heads = ("run", "started", "spider", "version", "purposes", "profile", "agents",
             "user agent", "resumes", "ended", "reason")  # fmt: skip
    head = "".join(f"<th>{h}</th>" for h in heads)
    return f'<table id="runs"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _refusing(summary: Summary) -> str:
    rows = summary.top_refusing()
    if not rows:
        return "<p>No origin refused anything.</p>"
    body = "".join(
        f"<tr><td>{html_text(origin)}</td><td>{t.refused}</td><td>{t.requests}</td></tr>"
        for origin, t in rows
    )
    return (
        '<table id="refusing"><thead><tr><th>origin</th><th>refused</th><th>requested</th>'
        f"</tr></thead><tbody>{body}</tbody></table>"
    )


def _verification(result: Verification) -> str:
    events = "".join(f"<li>{html_text(event)}</li>" for event in result.events)
    events = f'<ul id="events">{events}</ul>' if events else ""
    # several trails read as separate crawls: said before the verdict
    events = "".join(f'<p class="note">{html_text(note)}</p>' for note in result.notes) + events
    if result.clean:
        return (
            f'<p class="ok" id="verify">verify: clean: the chain of {result.lines} lines is '
            "whole and every decision re-derives the same "
            f"(head {html_text(result.head)})</p>{events}"
        )
    items = "".join(f"<li>{html_text(finding)}</li>" for finding in result.findings[:200])
    more = result.problems - min(len(result.findings), 200)
    tail = f"<li>… and {more} more</li>" if more > 0 else ""
    return (
        f'<p class="bad" id="verify">verify: {result.problems} problem(s)</p>'
        f"<ul>{items}{tail}</ul>{events}"
    )


def _item_section(summary: Summary, rows: list[str]) -> str:
    """The section of a recheck's items: their counts, and a table of them (the first
    :data:`MAX_ROWS`)."""
    if not summary.items.items:
        return ""
    heads = "".join(f"<th>{h}</th>" for h in ITEM_HEADS)
    shown = len(rows)
    note = (f"<p>The table shows the first {shown} items of {summary.items.items}.</p>"
            if shown < summary.items.items else "")  # fmt: skip
    return (
        f'<h2>Re-checked items</h2><p id="items-count">{html_text(items_line(summary.items))}</p>'
        f'{note}<div class="scroll"><table id="items"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def render(
    path: Path,
    summary: Summary,
    rows: list[str],
    result: Verification,
    item_rows: list[str],
) -> str:
    """The page. ``rows``: the table rows (:func:`row_html`), at most :data:`MAX_ROWS`;
    ``item_rows``: a recheck's items' (:func:`item_row_html`), as many at most."""
    cut = summary.total.requests - len(rows)
    note = f"<p>The table shows the first {len(rows)} records of {summary.total.requests}.</p>"
    heads = "".join(f"<th>{h}</th>" for h in HEADS)
    key = "".join(f'<span class="{kind}"></span>{said}' for kind, said in FATE_COLUMNS.items())
    key = f'<p class="key">{key}</p>'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Audit trail: {html_text(path.name)}</title><style>{_CSS}</style></head>
<body><h1>Audit trail: {html_text(path.name)}</h1>
<p>{len(summary.runs)} run(s) of spider(s)
{html_text(", ".join(sorted({str(r.get("spider")) for r in summary.runs})) or "-")}</p>
{"".join(f'<p class="bad steering">{html_text(s)}</p>' for r in summary.runs if (s := steering(r)))}
{_verification(result)}
<h2>Totals</h2><div class="totals">{_totals(summary)}</div>
<h2>Runs</h2><div class="scroll">{_runs(summary)}</div>
<h2>Decisions by deciding signal</h2>{key}{_chart("by-signal", summary.by_said.items())}
<h2>Decisions by origin</h2>{_chart("by-origin", summary.by_origin.items())}
<h2>Top refusing origins</h2>{_refusing(summary)}
<h2>Records</h2>
<p><label>Search: <input id="q" type="search" placeholder="URL, fate, signal, rule…"></label>
<span id="shown">{len(rows) + len(item_rows)}</span> shown</p>{note if cut > 0 else ""}
<div class="scroll"><table id="records"><thead><tr>{heads}</tr></thead><tbody>
{"".join(rows)}
</tbody></table></div>
{_item_section(summary, item_rows)}
<script>{_SCRIPT}</script></body></html>
"""


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
        *(f"<td>{html_text(n)}</td>" for n in (record.entry.status, *_output(record))),
        f"<td>{url_html(record.origin)}</td>",
    ]
    return f"<tr>{''.join(tds)}</tr>"


def _output(record: FateRecord) -> tuple[int | None, int | None]:
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
