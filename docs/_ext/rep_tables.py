"""Sphinx extension: tables generated from the code at build time.

In a page, a line ``<!-- rep: settings-table -->`` becomes the table of every setting of
:data:`scrapy_rep.settings.SETTINGS` (name, default) and ``<!-- rep: purpose-table -->``
the mapping of :data:`scrapy_rep._purpose_table.ROWS`. The settings page must have a
section for each setting and none for a setting the code does not have: a difference is
a warning (an error under ``-W``).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from scrapy_rep._purpose_table import ROWS
from scrapy_rep.settings import SETTINGS

if TYPE_CHECKING:
    from sphinx.application import Sphinx

try:  # Sphinx's logger turns a warning into a build error under -W
    from sphinx.util import logging as sphinx_logging

    logger: Any = sphinx_logging.getLogger(__name__)
except ImportError:  # the tables' tests run without Sphinx
    logger = logging.getLogger(__name__)
MARKER = re.compile(r"^<!-- rep: ([\w-]+) -->$", re.MULTILINE)
#: A setting's own section on the settings page: "### `REP_X`" (or "`REP_X` and `REP_Y`").
SECTION = re.compile(r"^#{2,4} (`[A-Z_]+`(?: and `[A-Z_]+`)*)$", re.MULTILINE)


def anchor(heading: str) -> str:
    """The GitHub-style anchor MyST gives a heading (``myst_heading_anchors``)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def sections(text: str) -> dict[str, str]:
    """Setting name -> the anchor of the section that documents it."""
    found: dict[str, str] = {}
    for match in SECTION.finditer(text):
        for name in re.findall(r"`([A-Z_]+)`", match.group(1)):
            found[name] = anchor(match.group(1))
    return found


def default_text(value: Any) -> str:
    if value is None:
        return "derived (see its section)"
    if isinstance(value, tuple):
        value = list(value)
    return f"`{value!r}`"


def settings_table(text: str) -> str:
    documented = sections(text)
    rows = ["| setting | default |", "|---|---|"]
    for setting in SETTINGS:
        target = documented.get(setting.name)
        name = f"[`{setting.name}`](#{target})" if target else f"`{setting.name}`"
        rows.append(f"| {name} | {default_text(setting.default)} |")
    return "\n".join(rows)


def purpose_table(_: str) -> str:
    def cell(answer: bool | None) -> str:
        return "–" if answer is None else ("allowed" if answer else "denied")

    rows = ["| vocabulary | signal | search | ai-train | ai-input |", "|---|---|---|---|---|"]
    for row in ROWS:
        answers = " | ".join(cell(answer) for answer in row.answers)
        rows.append(f"| {row.vocabulary} | `{row.signal}` | {answers} |")
    rows += ["", "Each row's source, as the code states it:", ""]
    rows += [f"- `{row.vocabulary}` `{row.signal}`: {row.source}" for row in ROWS]
    return "\n".join(rows)


TABLES = {"settings-table": settings_table, "purpose-table": purpose_table}


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


def fill(app: Sphinx, docname: str, source: list[str]) -> None:
    text = source[0]
    if "<!-- rep: settings-table -->" in text:
        for problem in settings_page_problems(text):
            logger.warning(problem, location=docname)

    def replace(match: re.Match[str]) -> str:
        make = TABLES.get(match.group(1))
        if make is None:
            logger.warning("unknown generated table %r", match.group(1), location=docname)
            return match.group(0)
        return make(text)

    source[0] = MARKER.sub(replace, text)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("source-read", fill)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
