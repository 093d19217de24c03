"""A real Scrapy project with the add-on, made by ``scrapy startproject`` (read and run by
Scrapy's own ``scrapy.cmdline.execute`` in this process; in a process of its own for one
test), its settings read as ``scrapy crawl`` reads them, in this process
(:func:`project_settings`), and ``scrapy crawl`` run in it as a user runs it (a
subprocess: its exit status and output).

Its spider ``one`` asks for the URLs given (none by default: the crawl then ends at
once, having made no request), so a test sees whether the crawl started at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import Settings

SPIDER = """
import scrapy


class One(scrapy.Spider):
    name = "one"
    start_urls = {urls!r}

    def parse(self, response):
        yield {{"url": response.url}}
"""


@dataclass(frozen=True)
class Crawl:
    status: int
    stdout: str
    stderr: str

    def error_lines(self) -> list[str]:
        """The ``scrapy_rep: error:`` lines (the setting errors) of standard error."""
        return [line for line in self.stderr.splitlines() if "scrapy_rep: error:" in line]


def make_project(
    tmp_path: Path, settings: str, urls: tuple[str, ...] = (), *, process: bool = False
) -> Path:
    """``scrapy startproject proj`` in ``tmp_path`` (in this process; in a process of its
    own with ``process``) with the add-on, ``settings`` (Python lines) added to its
    settings.py, and the spider ``one``; the project's folder."""
    project = tmp_path / "proj"
    if process:
        subprocess.run(
            [sys.executable, "-m", "scrapy", "startproject", "proj"],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            timeout=120,
        )
    else:
        from tests.support.tools import scrapy_streams

        code, stdout, stderr = scrapy_streams("startproject", "proj", str(project))
        assert code == 0, stdout + stderr
    settings_py = project / "proj" / "settings.py"
    text = settings_py.read_text()
    assert "ADDONS = {}" in text
    text = text.replace("ADDONS = {}", 'ADDONS = {"scrapy_rep.Addon": 0}')
    settings_py.write_text(f"{text}\nTELNETCONSOLE_ENABLED = False\n{settings}\n")
    (project / "proj" / "spiders" / "one.py").write_text(SPIDER.format(urls=list(urls)))
    return project


def scrapy_crawl(project: Path, *args: str) -> Crawl:
    """``scrapy crawl one`` in ``project``, with more command-line arguments."""
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "one", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return Crawl(result.returncode, result.stdout, result.stderr)


@contextmanager
def project_settings(project: Path) -> Iterator[Settings]:
    """The settings ``scrapy crawl`` reads in ``project``, read in this process by Scrapy's
    own ``get_project_settings`` from the project's folder (its ``scrapy.cfg``, the
    ``SCRAPY_SETTINGS_MODULE`` it names, the settings module imported from the project's
    folder); a crawl or a ``scrapy`` command line that needs them runs inside the
    ``with``. After it, the working folder, the environment, ``sys.path`` and the modules
    are as they were (the project's own modules forgotten: another project may have the
    same names)."""
    from scrapy.utils.project import get_project_settings

    folder, environ, path = Path.cwd(), dict(os.environ), list(sys.path)
    modules = set(sys.modules)
    os.chdir(project)
    try:
        yield get_project_settings()
    finally:
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        for name in set(sys.modules) - modules:
            file = getattr(sys.modules[name], "__file__", None) or ""
            if Path(file).is_relative_to(project):
                del sys.modules[name]
