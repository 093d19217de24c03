"""Tables generated from the code, written into the pages and checked at build time.

In a page, the lines between ``<!-- rep: settings-table -->`` and ``<!-- rep: end -->``
hold the table of every setting of :data:`rep_engine.settings.SETTINGS` (name, default
in its unit, the setting's one-line ``help``), and those after
``<!-- rep: purpose-table -->`` the mapping of :data:`rep_engine.usage.purpose.ROWS`,
and those after ``<!-- rep: signals-table -->`` the table of signals of
:data:`rep_engine.verdict.signals.SIGNALS` (every statement read: where, whose names,
which purposes and actions, how values combine).
The tables are written into the Markdown files, so a page reads whole on GitHub too:
``python docs/_ext/rep_tables.py`` rewrites them; a stale one is a warning when the
site is built (an error under ``-W``) and fails ``tests/project/test_docs.py``. The settings
page must have a section for each setting and none for a setting the code does not have.
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rep_engine.settings import SETTINGS, Setting
from rep_engine.usage.purpose import ROWS
from rep_engine.verdict.signals import SIGNALS

if TYPE_CHECKING:
    from sphinx.application import Sphinx

try:  # Sphinx's logger turns a warning into a build error under -W
    from sphinx.util import logging as sphinx_logging

    logger: Any = sphinx_logging.getLogger(__name__)
except ImportError:  # the tables' tests run without Sphinx
    logger = logging.getLogger(__name__)
#: A generated table: its start marker, the table as last written, the end marker.
MARKER = re.compile(r"^<!-- rep: ([\w-]+) -->\n(.*?)^<!-- rep: end -->$", re.MULTILINE | re.DOTALL)
END = "<!-- rep: end -->"
#: A setting's own section on the settings page: "### `REP_X`" (or "`REP_X` and `REP_Y`").
SECTION = re.compile(r"^#{2,4} (`[A-Z0-9_]+`(?: and `[A-Z0-9_]+`)*)$", re.MULTILINE)


def anchor(heading: str) -> str:
    """The GitHub-style anchor MyST gives a heading (``myst_heading_anchors``)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def sections(text: str) -> dict[str, str]:
    """Setting name -> the anchor of the section that documents it."""
    found: dict[str, str] = {}
    for match in SECTION.finditer(text):
        for name in re.findall(r"`([A-Z0-9_]+)`", match.group(1)):
            found[name] = anchor(match.group(1))
    return found


def number_text(value: float) -> str:
    """A whole number with thousands separators (``100,000``), else as written."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def duration_text(seconds: float) -> str:
    """Seconds as a reader counts them: ``30 s``, ``60 s``, ``10 min``, ``1 day``,
    ``7 days`` (under two minutes in seconds, else the largest unit that divides it)."""
    if seconds >= 120:
        for size, unit in ((86_400, "day"), (3_600, "h"), (60, "min")):
            if seconds % size == 0:
                count = int(seconds // size)
                return f"{count} {unit}{'s' if unit == 'day' and count > 1 else ''}"
    return f"{number_text(seconds)} s"


def size_text(size: int) -> str:
    """Bytes in the largest binary unit that divides them: ``512 MiB``, ``1 KiB``."""
    for power, unit in ((3, "GiB"), (2, "MiB"), (1, "KiB")):
        if size >= 1024**power and size % 1024**power == 0:
            return f"{size // 1024**power} {unit}"
    return f"{number_text(size)} bytes"


def default_text(setting: Setting) -> str:
    """A setting's default as the table shows it to a reader: a number in its unit
    (``30 s``, ``1 day``, ``512 MiB``, ``100,000``), a value as a project writes it
    (``True``, ``"drop"``, ``[]``), with the setting's ``shown`` words where the value
    cannot say it (``None``: derived from other settings; ``""``: off)."""
    value = setting.default
    if value is None:
        return setting.shown
    if isinstance(value, bool):
        text = f"`{value}`"
    elif isinstance(value, str):
        text = f'`"{value}"`'
    elif isinstance(value, tuple):
        text = f'`"{value[0]}"`' if len(value) == 1 else f"`{list(value)!r}`"
    elif setting.unit == "seconds":
        text = duration_text(value)
    elif setting.unit == "bytes":
        text = size_text(value)
    else:
        text = number_text(value)
    return f"{text} ({setting.shown})" if setting.shown else text


def settings_table(text: str) -> str:
    """Each setting: a link to its section, its default, what it does (one line)."""
    documented = sections(text)
    rows = ["| setting | default | what it does |", "|---|---|---|"]
    for setting in SETTINGS:
        target = documented.get(setting.name)
        name = f"[`{setting.name}`](#{target})" if target else f"`{setting.name}`"
        rows.append(f"| {name} | {default_text(setting)} | {setting.help} |")
    return "\n".join(rows)


def purpose_table(_: str) -> str:
    def cell(answer: bool | None) -> str:
        return "–" if answer is None else ("allowed" if answer else "denied")

    rows = [
        "| vocabulary | signal | search | ai-train | ai-input | revision followed |",
        "|---|---|---|---|---|---|",
    ]
    for row in ROWS:
        answers = " | ".join(cell(answer) for answer in row.answers)
        revision = getattr(row, "revision", "")  # from rep_engine.usage.standards.STANDARDS
        rows.append(f"| {row.vocabulary} | `{row.signal}` | {answers} | {revision} |")
    rows += ["", "Each row's source, as the code states it:", ""]
    rows += [f"- `{row.vocabulary}` `{row.signal}`: {row.source}" for row in ROWS]
    return "\n".join(rows)


def signals_table(_: str) -> str:
    """Each row of the table of signals: what it is, where it is read (and from which
    fields), whose names it binds, the purposes and actions it speaks to, how values
    combine, and its standard."""
    rows = [
        "| statement | read from | binds | purposes | actions | combined by | standard |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in SIGNALS:
        where = str(row.where)
        if row.fields:
            where += " " + ", ".join(f"`{name}`" for name in row.fields)
            if row.where == "meta tag" and row.binds == "our names":
                where += " and our names"
        actions = ", ".join(sorted(str(action) for action in row.actions))
        ai = " (AI purposes only)" if row.ai_only else ""
        rows.append(
            f"| {row.name} | {where}{ai} | {row.binds} | {', '.join(row.purposes)} | "
            f"{actions} | {row.combine} | {row.standard} |"
        )
    return "\n".join(rows)


TABLES = {
    "settings-table": settings_table,
    "purpose-table": purpose_table,
    "signals-table": signals_table,
}


def settings_page_problems(text: str) -> list[str]:
    """What the settings page gets wrong against :data:`SETTINGS`."""
    documented = set(sections(text))
    known = {setting.name for setting in SETTINGS}
    problems = [
        f"setting {name} has no section on the settings page" for name in sorted(known - documented)
    ]
    problems += [
        f"the settings page documents {name}, not a setting"
        for name in sorted(documented - known)
        if name.startswith("REP_")
    ]
    return problems


def documented_defaults(text: str) -> dict[str, str]:
    """Setting name -> the default its section states (``Default: `60```; a shared
    section's ``Defaults: `60` and `604800```)."""
    found: dict[str, str] = {}
    for section in re.split(r"^#{2,4} ", text, flags=re.MULTILINE):
        heading = re.match(r"(`[A-Z0-9_]+`(?: and `[A-Z0-9_]+`)*)\n", section)
        stated = re.search(r"Defaults?: ((?:`[^`]*`(?: \([^)]*\))?(?: and )?)+)", section)
        if heading and stated:
            names = re.findall(r"`([A-Z0-9_]+)`", heading.group(1))
            values = re.findall(r"`([^`]*)`", stated.group(1))
            found.update(zip(names, values, strict=False))
    return found


def same_default(stated: str, default: Any) -> bool:
    """Whether the text of a section's default means the code's default."""
    try:
        value = ast.literal_eval(stated)
    except (ValueError, SyntaxError):
        return False
    if isinstance(default, tuple) and len(default) == 1 and value == default[0]:
        return True  # one purpose, written as a string
    if isinstance(default, tuple) and isinstance(value, list):
        value = tuple(value)
    if isinstance(value, bool) or isinstance(default, bool):
        return value is default
    return bool(value == default)


def default_problems(text: str) -> list[str]:
    """Sections whose stated default is not the code's."""
    stated = documented_defaults(text)
    return [
        f"{s.name}: the settings page says the default is {stated[s.name]}, the code {s.default!r}"
        for s in SETTINGS
        if s.name in stated and not same_default(stated[s.name], s.default)
    ]


def refreshed(text: str) -> tuple[str, list[str]]:
    """The page with each generated table written afresh, and the tables that were stale
    (or unknown) in ``text``."""
    stale: list[str] = []

    def replace(match: re.Match[str]) -> str:
        make = TABLES.get(match.group(1))
        if make is None:
            stale.append(f"unknown generated table {match.group(1)!r}")
            return match.group(0)
        table = f"\n{make(text)}\n\n"  # blank lines: a Markdown table of its own
        if match.group(2) != table:
            stale.append(
                f"the {match.group(1)} written in the page is stale: "
                "run python docs/_ext/rep_tables.py"
            )
        return f"<!-- rep: {match.group(1)} -->\n{table}{END}"

    return MARKER.sub(replace, text), stale


def fill(app: Sphinx, docname: str, source: list[str]) -> None:
    text = source[0]
    if "<!-- rep: settings-table -->" in text:
        for problem in settings_page_problems(text) + default_problems(text):
            logger.warning(problem, location=docname)
    source[0], stale = refreshed(text)
    for problem in stale:
        logger.warning(problem, location=docname)


def write_tables(docs: Path) -> list[str]:
    """Rewrite the generated tables of every page under ``docs``; the pages changed."""
    changed = []
    for page in sorted(docs.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        new, _ = refreshed(text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page.name)
    return changed


def generated_pages(app: Sphinx, *_: Any) -> list[str]:
    """The pages with a generated table: read again at every build (the code they are
    written from may have changed while their text did not)."""
    source = Path(app.srcdir)
    return [
        str(page.relative_to(source).with_suffix(""))
        for page in source.glob("*.md")
        if MARKER.search(page.read_text(encoding="utf-8"))
    ]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("source-read", fill)
    app.connect("env-get-outdated", generated_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    for name in write_tables(Path(__file__).resolve().parents[1]):
        print(f"rewrote the generated tables of docs/{name}")
