"""A datatrove pipeline step that keeps the documents a crawl with these settings may
keep now, by the recheck's decision (docs/recheck.md, "Past one machine").

datatrove (the library FineWeb-scale datasets are processed with) runs a pipeline's
steps in many tasks, on one machine (``LocalPipelineExecutor``) or a cluster (Slurm,
Ray): :class:`RepRecheckFilter` decides each document's URL (its ``metadata["url"]``)
with :class:`~rep_recheck.rechecker.Rechecker`, the same decision as
``python -m scrapy_rep recheck``, on the documents of a WARC of robots.txt (and
tdmrep.json) captures that every task reads (a path datatrove's workers share: a
network file system, or an object store mounted). Each task reads the WARC once, when
its first document comes. Needs datatrove (``pip install datatrove warcio``: the
``datatrove`` extra).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import nullcontext
from typing import Any

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.base import PipelineStep

from rep_engine.records import ItemStatus
from rep_recheck.command import read_settings, warc_rechecker
from rep_recheck.rechecker import Rechecker

__all__ = ["RepRecheckFilter"]


class RepRecheckFilter(PipelineStep):  # type: ignore[misc]
    """Keeps the documents whose URL is allowed now for ``purpose``; drops the refused
    ones and, unless ``keep_unknown``, those whose documents could not be had (each
    counted in the step's stats: ``kept``, ``refused``, ``unknown``, ``unreadable``).
    ``settings``: a crawl's further settings (``USER_AGENT``, ``ROBOTSTXT_USER_AGENT``,
    ``REP_PROFILE``, ``REP_PURPOSE_AGENTS``…); ``url_key``: the metadata key of the URL;
    ``exclusion_writer``: a datatrove writer given the documents dropped, each with its
    ``rep_status`` and ``rep_why`` in its metadata. A setting the crawl would refuse
    (``ROBOTSTXT_OBEY = "ture"``) raises :class:`~rep_engine.settings.readers.RepSettingError`
    here, as the step is made, naming the setting."""

    name = "scrapy_rep recheck"
    type = "🔻 - FILTER"

    def __init__(
        self,
        documents: str,
        purpose: str = "ai-train",
        settings: Mapping[str, Any] | None = None,
        url_key: str = "url",
        keep_unknown: bool = False,
        exclusion_writer: Any = None,
    ) -> None:
        super().__init__()
        self.documents = documents
        self.settings = {**(settings or {}), "REP_PURPOSE": purpose}
        read_settings(self.settings)  # a wrong setting stops the pipeline before its work
        self.url_key = url_key
        self.keep_unknown = keep_unknown
        self.exclusion_writer = exclusion_writer
        self._rechecker: Rechecker | None = None

    def rechecker(self) -> Rechecker:
        """The decisions, made ready on first use (in the task's own process)."""
        if self._rechecker is None:
            self._rechecker = warc_rechecker(self.settings, self.documents)
        return self._rechecker

    def kept(self, document: Document) -> tuple[bool, str, str]:
        """Whether ``document`` is kept, its status, and why not."""
        url = document.metadata.get(self.url_key)
        if not isinstance(url, str) or url.partition(":")[0].lower() not in ("http", "https"):
            return False, "unreadable", f"no http(s) URL in metadata[{self.url_key!r}]"
        outcome = self.rechecker().decide(url)
        status = outcome.status
        refusal = outcome.refusal
        why = refusal.message if refusal is not None else outcome.why
        kept = status is ItemStatus.KEPT or (status is ItemStatus.UNKNOWN and self.keep_unknown)
        return kept, str(status), why

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        writer = self.exclusion_writer
        with writer if writer is not None else nullcontext():
            for document in data:
                self.stat_update("total")
                with self.track_time():
                    kept, status, why = self.kept(document)
                self.stat_update(status)
                if kept:
                    yield document
                    continue
                if writer is not None:
                    document.metadata["rep_status"] = status
                    document.metadata["rep_why"] = why
                    writer.write(document, rank)
