"""datatrove pipeline steps that keep the documents a crawl with these settings may keep
now, by the recheck's decision (docs/recheck.md, "Past one machine"), each origin's
documents parsed once in all however many tasks share the work.

datatrove (the library FineWeb-scale datasets are processed with) runs a pipeline's
steps in many tasks, on one machine (``LocalPipelineExecutor``) or a cluster (Slurm,
Ray): :class:`RepRecheckFilter` decides each document's URL (its ``metadata["url"]``)
with :class:`~rep_recheck.rechecker.Rechecker`, the same decision as
``python -m scrapy_rep recheck``, on the documents of a WARC of robots.txt (and
tdmrep.json) captures that every task reads (a path datatrove's workers share: a
network file system, or an object store mounted). Each task reads the WARC once, when
its first document comes. Needs datatrove (``pip install datatrove warcio``: the
``datatrove`` extra).

datatrove's readers split the input by file, so that any task may meet any origin's
documents, and each task would parse every origin it meets. Two stages send every
origin to one task, as datatrove's own deduplication sends each hash to one
(``minhash``'s buckets): the first tags each document with its origin's partition
(:class:`RepOriginPartitioner`, a CRC-32 of the origin's name: the same on every
machine) for a writer that writes one folder per partition; the second reads, in task
``rank`` of ``world_size``, the partitions ``rank``, ``rank + world_size``… one after
the other (:class:`RepOriginPartitions`), and its filter starts each partition with no
origin held (a partition of no more origins than ``REP_RECHECK_PARSED_ORIGINS`` then
parses each of its origins once).
"""

from __future__ import annotations

import logging
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Final

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.base import PipelineStep

from rep_engine.records import ItemStatus
from rep_engine.urls.origins import origin_of
from rep_recheck.command import read_settings, warc_rechecker
from rep_recheck.datasets import UNREADABLE, url_problem
from rep_recheck.deciding import choices_line
from rep_recheck.options import consult_of
from rep_recheck.outputs import EvidenceMemo
from rep_recheck.rechecker import Rechecker

__all__ = ["PARTITION_KEY", "RepOriginPartitioner", "RepOriginPartitions", "RepRecheckFilter",
           "origin_partition"]  # fmt: skip

#: The metadata key of a document's origin partition (five digits: ``00042``), which
#: :class:`RepOriginPartitioner` sets, a writer's ``output_filename`` names
#: (``${rep_partition}/${rank}.jsonl.gz``) and :class:`RepRecheckFilter` takes out.
PARTITION_KEY: Final = "rep_partition"
_LOG: Final = logging.getLogger(__name__)
#: The choices of a WARC that holds no capture of a kind of document the purpose needs,
#: as the step takes them (:func:`~rep_recheck.deciding.choices_line`): the step never
#: fetches, the command fills a WARC's gaps.
CHOICES: Final = (
    "a WARC that holds them (`python -m scrapy_rep recheck --documents WARC "
    "--fetch-missing` fetches what one lacks)",
    'consult=["robots.txt"]',
    "keep_unknown=True",
)


def origin_partition(url: Any, partitions: int) -> int:
    """The partition of ``url``'s origin among ``partitions`` (0 for a document with no
    http(s) URL): a CRC-32 of the origin's name (``https://a.example``), the same in
    every process and on every machine (Python's ``hash`` of a string is salted per
    process)."""
    origin = origin_of(url) if isinstance(url, str) else None
    if origin is None:
        return 0
    return zlib.crc32(str(origin).encode()) % partitions


class RepOriginPartitioner(PipelineStep):  # type: ignore[misc]
    """The first stage: each document tagged with its origin's partition
    (``metadata["rep_partition"]``, :func:`origin_partition` of its
    ``metadata[url_key]`` among ``partitions``, five digits), for a writer that writes
    each partition's documents to its own folder: ``JsonlWriter(folder,
    output_filename="${rep_partition}/${rank}.jsonl.gz")``."""

    name = "scrapy_rep origin partition"
    type = "🗂 - PARTITION"

    def __init__(self, partitions: int, url_key: str = "url") -> None:
        super().__init__()
        if partitions < 1:
            raise ValueError(f"partitions must be at least 1, got {partitions}")
        self.partitions = partitions
        self.url_key = url_key

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        for document in data:
            partition = origin_partition(document.metadata.get(self.url_key), self.partitions)
            document.metadata[PARTITION_KEY] = f"{partition:05d}"
            self.stat_update("tagged")
            yield document


class RepOriginPartitions(PipelineStep):  # type: ignore[misc]
    """The second stage's reader: in task ``rank`` of ``world_size``, the documents of
    the partitions ``rank``, ``rank + world_size``… (``partitions`` of them, as the
    first stage made), one partition after the other, each read by ``reader`` (a
    datatrove reader of the first stage's output folder: ``JsonlReader(folder)``) from
    its folder (``00042/``). Every document of an origin comes to one task; with as
    many tasks as partitions, one partition each."""

    name = "scrapy_rep origin partitions"
    type = "📖 - READER"

    def __init__(self, reader: Any, partitions: int) -> None:
        super().__init__()
        if partitions < 1:
            raise ValueError(f"partitions must be at least 1, got {partitions}")
        self.reader = reader
        self.partitions = partitions

    def run(
        self, data: DocumentsPipeline = None, rank: int = 0, world_size: int = 1
    ) -> Iterator[Any]:
        if data:
            yield from data
        reader = self.reader
        for partition in range(rank, self.partitions, world_size):
            files = reader.data_folder.list_files(
                subdirectory=f"{partition:05d}", recursive=reader.recursive,
                glob_pattern=reader.glob_pattern,
            )  # fmt: skip
            self.stat_update("partitions")
            for document in reader.read_files_shard(files):
                self.stat_update("documents")
                yield document


class RepRecheckFilter(PipelineStep):  # type: ignore[misc]
    """Keeps the documents whose URL is allowed now for ``purpose``; drops the refused
    ones and, unless ``keep_unknown``, those whose documents could not be had (each
    counted in the step's stats: ``kept``, ``refused``, ``unknown``, ``unreadable``, and
    as datatrove's filters count theirs, ``dropped`` and ``dropped_<signal>``: the signal
    the report names, ``robots.txt``, ``aipref``, ``robotstxt_unreachable``, ``unknown``…).
    ``documents``: a WARC, a folder of WARCs or a list of them, read as ``--documents``
    reads them; ``settings``: a crawl's further settings (``USER_AGENT``,
    ``ROBOTSTXT_USER_AGENT``, ``REP_PROFILE``, ``REP_PURPOSE_AGENTS``…); ``url_key``: the
    metadata key of the URL;
    ``exclusion_writer``: a datatrove writer given the documents dropped, each with its
    ``rep_status``, ``rep_why`` and ``filter_reason`` (the signal) in its metadata;
    ``consult``: the kinds of document decided on (``["robots.txt"]``: a robots.txt-only
    WARC; the others read as none, and every document decided names them in its
    ``rep_not_consulted``). A setting the crawl would refuse (``ROBOTSTXT_OBEY =
    "ture"``) raises :class:`~rep_engine.settings.readers.RepSettingError` here, as the
    step is made, naming the setting; a kind of document the engine does not name,
    :class:`~rep_recheck.options.UsageError`. It logs a WARNING (logger
    ``rep_recheck.pipeline_step``) when the WARC holds no capture of a kind of document
    the purpose needs (as its first document comes), and at its end when documents were
    unknown or none was kept."""

    name = "scrapy_rep recheck"
    type = "🔻 - FILTER"

    def __init__(
        self,
        documents: str | Path | Sequence[str | Path],
        purpose: str = "ai-train",
        settings: Mapping[str, Any] | None = None,
        url_key: str = "url",
        keep_unknown: bool = False,
        exclusion_writer: Any = None,
        consult: str | Iterable[str] | None = None,
    ) -> None:
        super().__init__()
        self.documents = documents
        self.settings = {**(settings or {}), "REP_PURPOSE": purpose}
        read_settings(self.settings)  # a wrong setting stops the pipeline before its work
        self.consult = consult_of(consult)  # a kind misspelt, too
        self.url_key = url_key
        self.keep_unknown = keep_unknown
        self.exclusion_writer = exclusion_writer
        self._rechecker: Rechecker | None = None
        self._memo = EvidenceMemo()

    def rechecker(self) -> Rechecker:
        """The decisions, made ready on first use (in the task's own process)."""
        if self._rechecker is None:
            self._rechecker, never = warc_rechecker(self.settings, self.documents, self.consult)
            if never:
                purposes = self._rechecker.config.purpose
                said = choices_line(never, purposes, CHOICES, self.keep_unknown)
                _LOG.warning("%s: %s", self.name, said)
        return self._rechecker

    def kept(self, document: Document) -> tuple[bool, str, str]:
        """Whether ``document`` is kept, its status, and why not."""
        kept, status, why, _ = self._decided(document)
        return kept, status, why

    def _decided(self, document: Document) -> tuple[bool, str, str, str]:
        """Whether ``document`` is kept, its status, why not, and the signal that
        decided it (the report's)."""
        url = document.metadata.get(self.url_key)
        if problem := url_problem(url):  # the command's reading: no host, a bad port…
            return False, UNREADABLE, f"metadata[{self.url_key!r}]: {problem}", UNREADABLE
        assert isinstance(url, str)  # url_problem said it is one
        rechecker = self.rechecker()
        outcome = rechecker.decide(url)
        if rechecker.not_consulted:
            document.metadata["rep_not_consulted"] = list(rechecker.not_consulted)
        status = outcome.status
        refusal = outcome.refusal
        why = refusal.message if status is ItemStatus.REFUSED and refusal else outcome.why
        kept = status is ItemStatus.KEPT or (status is ItemStatus.UNKNOWN and self.keep_unknown)
        return kept, str(status), why, "" if kept else self._memo.of(url, outcome).signal

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        writer = self.exclusion_writer
        partition = None
        statuses: Counter[str] = Counter()
        passed = 0
        with writer if writer is not None else nullcontext():
            for document in data:
                self.stat_update("total")
                tag = document.metadata.pop(PARTITION_KEY, None)
                if tag != partition:  # the next origin partition: its origins only
                    if partition is not None and self._rechecker is not None:
                        self._rechecker.forget()
                        self._memo.clear()
                    partition = tag
                with self.track_time():
                    kept, status, why, signal = self._decided(document)
                self.stat_update(status)
                statuses[status] += 1
                passed += kept
                if kept:
                    yield document
                    continue
                self.stat_update("dropped", f"dropped_{signal}")
                if writer is not None:
                    document.metadata |= {"rep_status": status, "rep_why": why,
                                          "filter_reason": signal}  # fmt: skip
                    writer.write(document, rank)
        self._parses()
        self._warn(statuses, passed)

    def _warn(self, statuses: Counter[str], passed: int) -> None:
        """The WARNING of a task whose documents were unknown, or none passed on
        (``statuses``: its documents by status; ``passed`` of them passed on)."""
        total = statuses.total()
        unknown = statuses[ItemStatus.UNKNOWN]
        if unknown:
            fate = "kept (keep_unknown)" if self.keep_unknown else "dropped"
            _LOG.warning("%s: %s of %s document(s) unknown, %s: their documents were not had "
                         "(each one's rep_why says which)", self.name, f"{unknown:,}",
                         f"{total:,}", fate)  # fmt: skip
        if total and not passed:
            _LOG.warning("%s: every document (%s) was dropped", self.name, f"{total:,}")

    def _parses(self) -> None:
        """The stats of what this task parsed: ``origins_asked``, the origins whose
        documents it asked for (each once in all when every origin comes to one task, its
        partition's origins held at once), and ``documents_read``, the WARC's documents
        it read (robots.txt, tdmrep.json, licenses: a crawl's downloads)."""
        rechecker = self._rechecker
        if rechecker is None:
            return
        self.stat_update("origins_asked", value=rechecker.asked)
        self.stat_update("documents_read", value=getattr(rechecker.documents, "read", 0))
