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

With ``trail``, a folder every task sees, each task writes its own trail there (the
recheck's :class:`~rep_recheck.trail.RecheckTrail`, ``00002.jsonl`` for task 2), whose
header names the pipeline run (its id, made by the first task to start and kept in the
folder's ``pipeline.json``), the task and the number of tasks, so that ``audit verify``
of the folder's trails reads them as one run and names a task whose trail is missing
(docs/audit-trail.md, "Several tasks"). A task run again after it failed appends its
run to its trail; the folder's ``pipeline.json`` ties it to the tasks run before, and
refuses a run of other arguments or another number of tasks.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Final

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.base import PipelineStep

from rep_engine.records import ItemStatus, iso_time
from rep_engine.trail.file import TrailFileError
from rep_engine.urls.origins import origin_of
from rep_recheck.asof import DateError, Then, check_dated, parse_as_of
from rep_recheck.command import read_settings
from rep_recheck.datasets import UNREADABLE, DatasetError, Item, field_of, url_problem
from rep_recheck.deciding import choices_line, dated_rechecker, decide_item
from rep_recheck.files import warc_files
from rep_recheck.finishing import named_warcs
from rep_recheck.options import UsageError, consult_of
from rep_recheck.outputs import EvidenceMemo
from rep_recheck.rechecker import Rechecker
from rep_recheck.trail import RecheckTrail

__all__ = ["PARTITION_KEY", "PIPELINE_FILE", "RepOriginPartitioner", "RepOriginPartitions",
           "RepRecheckFilter", "origin_partition", "pipeline_of", "trail_folder"]  # fmt: skip

#: The metadata key of a document's origin partition (five digits: ``00042``), which
#: :class:`RepOriginPartitioner` sets, a writer's ``output_filename`` names
#: (``${rep_partition}/${rank}.jsonl.gz``) and :class:`RepRecheckFilter` takes out.
PARTITION_KEY: Final = "rep_partition"
#: The file of a trail folder that names the pipeline run its tasks' trails are of
#: (:func:`pipeline_of`).
PIPELINE_FILE: Final = "pipeline.json"
#: The metadata key of the file a datatrove reader read a document from.
FILE_PATH: Final = "file_path"
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


class UrlField:
    """The metadata field of each document's URL (``url_key``: a key, or a dotted path
    into nested objects), read as ``recheck`` reads a dataset's URL field
    (:func:`~rep_recheck.datasets.field_of`); and, as ``recheck`` stops at a file whose
    first item lacks it (exit 2: a wrong ``--column``), a file whose first document lacks
    it stops the task: :class:`~rep_recheck.datasets.DatasetError`, naming the field,
    which datatrove's executor fails the task with. A file's first document is the
    task's first, or one whose ``file_path`` (datatrove's readers set it) is not the one
    before it; documents of the second of the two stages (``tagged``: read from the
    partitions, in which the first stage's files are mixed) only the task's first.
    Any other document without it is unreadable, as a later item without it is
    (``stops``: ``False``, every one)."""

    def __init__(self, key: str, stops: bool = True) -> None:
        self.key = key
        self.stops = stops
        #: The ``file_path`` of the document read last (``None`` too: none said).
        self._file: Any = None
        self._read = 0

    def of(self, document: Document, tagged: bool) -> tuple[bool, Any]:
        """Whether ``document`` has the field, and its value."""
        metadata = document.metadata
        found, url = field_of(metadata, self.key)
        file = metadata.get(FILE_PATH)
        first = not self._read or (not tagged and file != self._file)
        self._read += 1
        self._file = file
        if not found and first and self.stops:
            fields = ", ".join(map(repr, list(metadata)[:10])) or "none"
            raise DatasetError(
                f"{file or 'the task'}: its first document ({document.id!r}) has no "
                f"{self.key!r} field in its metadata (its fields: {fields}): name the field "
                "that holds each document's URL with url_key"
            )
        return found, url


class RepOriginPartitioner(PipelineStep):  # type: ignore[misc]
    """The first stage: each document tagged with its origin's partition
    (``metadata["rep_partition"]``, :func:`origin_partition` of its
    ``metadata[url_key]`` among ``partitions``, five digits), for a writer that writes
    each partition's documents to its own folder: ``JsonlWriter(folder,
    output_filename="${rep_partition}/${rank}.jsonl.gz")``. A file whose first document
    lacks ``url_key`` stops the task, as the filter's does (:class:`UrlField`); a later
    document without it goes to partition 0."""

    name = "scrapy_rep origin partition"
    type = "🗂 - PARTITION"

    def __init__(self, partitions: int, url_key: str = "url") -> None:
        super().__init__()
        if partitions < 1:
            raise ValueError(f"partitions must be at least 1, got {partitions}")
        self.partitions = partitions
        self.url_key = url_key

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        field = UrlField(self.url_key)
        for document in data:
            partition = origin_partition(field.of(document, False)[1], self.partitions)
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
    metadata key of the URL (a file whose first document lacks it stops the task:
    :class:`UrlField`);
    ``exclusion_writer``: a datatrove writer given the documents dropped, each with its
    ``rep_status``, ``rep_why`` and ``filter_reason`` (the signal) in its metadata, and
    ``rep_then`` where older captures say it; ``consult``: the kinds of document decided
    on (``["robots.txt"]``: a robots.txt-only WARC; the others read as none, and every
    document decided names them in its ``rep_not_consulted``). ``as_of`` (``--as-of``):
    each URL's newest capture at or before that date decides; ``date_key``
    (``--date-column``): the metadata key of each document's date, an ISO 8601 time or
    an epoch in seconds or milliseconds, whose nearest capture at or before it says what
    each document was then (``rep_then``; ``then_tolerance``: ``--then-tolerance``), as
    the command decides ``then``
    (:func:`~rep_recheck.deciding.decide_item`). ``trail``: a folder every task sees,
    each task's trail written there (:meth:`task_trail`). A setting the crawl would
    refuse (``ROBOTSTXT_OBEY = "ture"``) raises
    :class:`~rep_engine.settings.readers.RepSettingError` here, as the step is made,
    naming the setting; a kind of document the engine does not name, or a ``trail`` that
    is no folder, :class:`~rep_recheck.options.UsageError`; an ``as_of`` that is no date,
    :class:`~rep_recheck.asof.DateError`. It logs a WARNING (logger
    ``rep_recheck.pipeline_step``) when the WARC holds no capture of a kind of document
    the purpose needs (as its first document comes), and at its end when documents were
    unknown, none was kept, or documents refused now had no date to read."""

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
        date_key: str | None = None,
        as_of: str | None = None,
        trail: str | Path | None = None,
        then_tolerance: str | None = None,
    ) -> None:
        super().__init__()
        self.documents = documents
        self.settings = {**(settings or {}), "REP_PURPOSE": purpose}
        read_settings(self.settings)  # a wrong setting stops the pipeline before its work
        self.consult = consult_of(consult)  # a kind misspelt, too
        self.url_key = url_key
        self.keep_unknown = keep_unknown
        self.exclusion_writer = exclusion_writer
        self.date_key = date_key
        if as_of is not None:  # a date that does not parse, too
            try:
                parse_as_of(as_of)
            except ValueError:
                raise DateError(f"as_of takes an ISO date or date and time (UTC), got "
                                f"{as_of!r}") from None  # fmt: skip
        self.as_of = as_of
        if then_tolerance is not None:  # a duration that does not parse, too
            check_dated(["documents"], None, date_key, False, then_tolerance)
        self.then_tolerance = then_tolerance
        self.trail = trail_folder(trail)
        self._rechecker: Rechecker | None = None
        #: What says a document's ``then`` (``None``: nothing older to say it).
        self._then: Then | None = None
        self._memo = EvidenceMemo()
        self._memo.kept_said = False  # a kept document's evidence is never read

    def rechecker(self) -> Rechecker:
        """The decisions, made ready on first use (in the task's own process)."""
        if self._rechecker is None:
            self._rechecker, never, self._then = dated_rechecker(
                self.settings, self.documents, self.consult, self.as_of,
                self.date_key is not None, self.trail is not None, self.then_tolerance,
            )  # fmt: skip
            if never:
                purposes = self._rechecker.config.purpose
                said = choices_line(never, purposes, CHOICES, self.keep_unknown)
                _LOG.warning("%s: %s", self.name, said)
        return self._rechecker

    def kept(self, document: Document) -> tuple[bool, str, str]:
        """Whether ``document`` is kept, its status, and why not (one document: without
        its URL field, unreadable)."""
        field = UrlField(self.url_key, stops=False)
        kept, status, why, _, _ = self._decided(document, field, 1, False)
        return kept, status, why

    def _decided(
        self, document: Document, field: UrlField, number: int, tagged: bool,
        trail: RecheckTrail | None = None,
    ) -> tuple[bool, str, str, str, str | None]:  # fmt: skip
        """Whether ``document`` (the task's ``number``-th, ``tagged`` with its partition)
        is kept, its status, why not, the signal that decided it (the report's), and its
        status then (``None``: not said), decided as the command decides an item
        (``trail``: its record written there)."""
        found, url = field.of(document, tagged)
        problem = url_problem(url) if found else f"no {self.url_key!r} field"
        if problem:  # the command's reading: no host, a bad port…
            return False, UNREADABLE, f"metadata[{self.url_key!r}]: {problem}", UNREADABLE, None
        date = field_of(document.metadata, self.date_key)[1] if self.date_key else None
        rechecker = self.rechecker()
        item, status, evidence, outcome = decide_item(
            Item(number, url, date=date), rechecker, None, trail, self._memo, "", self._then,
            self.date_key is not None,
        )  # fmt: skip
        assert outcome is not None  # its URL was read
        if rechecker.not_consulted:
            document.metadata["rep_not_consulted"] = list(rechecker.not_consulted)
        refusal = outcome.refusal
        why = refusal.message if outcome.status is ItemStatus.REFUSED and refusal else outcome.why
        kept = outcome.status is ItemStatus.KEPT or (
            outcome.status is ItemStatus.UNKNOWN and self.keep_unknown
        )
        return kept, status, why, "" if kept else evidence.signal, item.then

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        writer = self.exclusion_writer
        trail = self.task_trail(rank, world_size) if self.trail is not None else None
        field = UrlField(self.url_key)
        partition = None
        statuses: Counter[str] = Counter()
        passed = 0
        try:
            with writer if writer is not None else nullcontext():
                for number, document in enumerate(data, 1):
                    self.stat_update("total")
                    tag = document.metadata.pop(PARTITION_KEY, None)
                    if tag != partition:  # the next origin partition: its origins only
                        if partition is not None:
                            self._forget()
                        partition = tag
                    with self.track_time():
                        kept, status, why, signal, then = self._decided(
                            document, field, number, tag is not None, trail
                        )
                    self.stat_update(status)
                    statuses[status] += 1
                    passed += kept
                    if then is not None:  # kept or dropped: its crawl-time answer
                        document.metadata["rep_then"] = then
                    if kept:
                        yield document
                        continue
                    self.stat_update("dropped", f"dropped_{signal}")
                    if writer is not None:
                        document.metadata |= {"rep_status": status, "rep_why": why,
                                              "filter_reason": signal}  # fmt: skip
                        writer.write(document, rank)
        except BaseException as error:  # the task failed or was stopped: its trail says so
            if trail is not None:
                trail.fail(_stopped(error, statuses.total()), statuses[UNREADABLE])
            raise
        if trail is not None:
            trail.close(statuses[UNREADABLE])
        self._parses()
        self._warn(statuses, passed)

    def task_trail(self, rank: int, world_size: int) -> RecheckTrail:
        """Task ``rank`` of ``world_size``'s trail, ``<trail>/<rank, 5 digits>.jsonl``
        (appended to: a task run again after it failed adds its run), its header naming
        the pipeline run (:func:`pipeline_of`), the task and the number of tasks. Raises
        :class:`~rep_engine.trail.file.TrailFileError` (a folder of another pipeline
        run, a trail another process writes, one that ends with a cut line)."""
        assert self.trail is not None
        pipeline = pipeline_of(self.trail, world_size, self._arguments())
        config, identity, user_agent = read_settings(self.settings)
        # the trail's own: the same names and scope as the deciders made at the first
        # document (a task with no document reads no WARC)
        deciders = Rechecker(config, identity, lambda origin: None).consulting(self.consult)
        about: dict[str, Any] = {
            "dataset": f"datatrove task {rank} of {world_size} (its rank)",
            "format": "datatrove",
            "documents": named_warcs(warc_files(self.documents).paths),
            "pages": False,
            "keep_unknown": bool(self.keep_unknown),
            "url_key": self.url_key,
            "pipeline": {"id": pipeline, "task": rank, "tasks": world_size},
        }
        if deciders.not_consulted:  # consult: the items' declared scope
            about["not_consulted"] = list(deciders.not_consulted)
        if self.date_key is not None:
            about["date_key"] = self.date_key
        if self.as_of is not None:
            about["as_of"] = self.as_of
        if self.then_tolerance is not None:
            about["then_tolerance"] = self.then_tolerance
        return RecheckTrail(self.trail / f"{rank:05d}.jsonl", deciders, about, user_agent,
                            self.settings.get("REP_PURPOSE_AGENTS"))  # fmt: skip

    def _arguments(self) -> str:
        """The SHA-256 of what the step decides with (its WARC, settings, scope, keys
        and date): the tasks of one pipeline run share it."""
        said = {
            "documents": str(self.documents), "settings": self.settings,
            "consult": self.consult, "keep_unknown": bool(self.keep_unknown),
            "url_key": self.url_key, "date_key": self.date_key, "as_of": self.as_of,
            "then_tolerance": self.then_tolerance,
        }  # fmt: skip
        text = json.dumps(said, sort_keys=True, default=_stable)
        return hashlib.sha256(text.encode()).hexdigest()

    def _forget(self) -> None:
        """The origins held let go (the next partition's are others)."""
        if self._rechecker is not None:
            self._rechecker.forget()
        self._memo.clear()
        if self._then is not None:
            self._then.forget()

    def _warn(self, statuses: Counter[str], passed: int) -> None:
        """The WARNING of a task whose documents were unknown, or none passed on
        (``statuses``: its documents by status; ``passed`` of them passed on), or whose
        documents refused now had no date to read."""
        total = statuses.total()
        unknown = statuses[ItemStatus.UNKNOWN]
        if unknown:
            fate = "kept (keep_unknown)" if self.keep_unknown else "dropped"
            _LOG.warning("%s: %s of %s document(s) unknown, %s: their documents were not had "
                         "(each one's rep_why says which)", self.name, f"{unknown:,}",
                         f"{total:,}", fate)  # fmt: skip
        if total and not passed:
            _LOG.warning("%s: every document (%s) was dropped", self.name, f"{total:,}")
        if self._then is not None and self._then.undated:
            _LOG.warning("%s: %s document(s) with no date to read in metadata[%r]: their "
                         "rep_then is unknown", self.name, f"{self._then.undated:,}",
                         self.date_key)  # fmt: skip
        if self._then is not None and (near := self._then.near_line()) is not None:
            _LOG.warning("%s: %s", self.name, near.replace("--then-tolerance", "then_tolerance"))

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


def _stopped(error: BaseException, decided: int) -> str:
    """Why a task's trail ends ``failed``: its error, or the pipeline closing the step
    before its documents ended (a later step failed, or the task was stopped)."""
    if isinstance(error, GeneratorExit):
        return (f"the pipeline stopped taking documents after {decided:,} (a later step "
                "failed, or the task was stopped)")  # fmt: skip
    return str(error) or type(error).__name__


def _stable(value: Any) -> Any:
    """A setting's value as :meth:`RepRecheckFilter._arguments` hashes it, the same in
    every task's process: a set's members in order, a class or function by its name,
    another object by its type's (never its ``repr``, which may hold its address)."""
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    name = getattr(value, "__qualname__", None)
    if isinstance(name, str):
        return f"{getattr(value, '__module__', '')}.{name}"
    return type(value).__qualname__


def trail_folder(trail: str | Path | None) -> Path | None:
    """The step's ``trail`` folder (``None``: none), as given. Raises
    :class:`~rep_recheck.options.UsageError` for an object store's URL (a trail is
    appended to, locked and chained: a file system every task sees, shared or mounted)
    or a path that is no folder."""
    if trail is None:
        return None
    if "://" in str(trail):
        raise UsageError(f"trail {trail}: a folder of a file system every task sees (each "
                         "task appends to its trail and locks it), not an object store's "
                         "URL")  # fmt: skip
    path = Path(trail)
    if path.exists() and not path.is_dir():
        raise UsageError(f"trail {trail}: not a folder (each task writes its own trail in it)")
    return path


def pipeline_of(folder: Path, tasks: int, arguments: str) -> str:
    """The id of the pipeline run whose ``tasks`` tasks write their trails in ``folder``:
    its :data:`PIPELINE_FILE`'s, made by the first task to start (whole, or not at all: a
    hard link, which fails for every task but the first), the others' read from it. The
    file holds the number of tasks and the step's ``arguments`` (a hash): a task run
    again after it failed finds them alike and goes on with the run; another run is
    refused (:class:`~rep_engine.trail.file.TrailFileError`)."""
    path = folder / PIPELINE_FILE
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        made = {"pipeline": uuid.uuid4().hex, "tasks": tasks, "arguments": arguments,
                "time": iso_time()}  # fmt: skip
        whole = folder / f".{PIPELINE_FILE}.{made['pipeline']}"
        whole.write_text(json.dumps(made) + "\n", encoding="utf-8")
        try:
            os.link(whole, path)
        except FileExistsError:
            pass  # another task's, made first
        finally:
            whole.unlink()
    try:
        said = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise TrailFileError(f"{path} cannot be read ({error})") from None
    run = said.get("pipeline") if isinstance(said, dict) else None
    if not isinstance(run, str):
        raise TrailFileError(f"{path} names no pipeline run: not a trail folder's")
    if said.get("tasks") != tasks:
        raise TrailFileError(
            f"{folder} holds the trails of a pipeline run of {said.get('tasks')} task(s) "
            f"(its {PIPELINE_FILE}: {run[:8]}…), this one has {tasks}: give each pipeline "
            "run a trail folder of its own"
        )
    if said.get("arguments") != arguments:
        raise TrailFileError(
            f"{folder} holds the trails of a pipeline run of other step arguments (WARC, "
            f"purpose, settings, keys or dates; its {PIPELINE_FILE}: {run[:8]}…): give "
            "each pipeline run a trail folder of its own (a run continued, its failed "
            "tasks run again, takes the same arguments)"
        )
    return run
