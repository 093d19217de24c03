"""The second step of a recheck, after the crawl that fetched its documents (pure):
every item decided, shard by shard, its outputs written under temporary names and put in
place once all are whole (:class:`~rep_recheck.files.Staged`), the summary, and
the exit status (:class:`Finishing`, which :class:`~rep_recheck.command.Recheck`
is made from).
"""

from __future__ import annotations

import argparse
import io
import itertools
import operator
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, TextIO

from rep_engine.records import EndReason, ItemStatus
from rep_engine.settings import RepConfig
from rep_engine.trail.terminal import printable
from rep_recheck.asof import Then
from rep_recheck.datasets import (
    STDIN,
    UNREADABLE,
    Chunk,
    Dataset,
    DatasetError,
    Item,
    compression_of,
)
from rep_recheck.deciding import (
    Closing,
    agents_obeyed,
    collector_paced,
    decide_item,
    origin_name,
    scope_note,
)
from rep_recheck.fetching import Completed, FetchRequest, FetchResult, PageAgain, Progress
from rep_recheck.files import Shards, Staged, Stale, output_of
from rep_recheck.grouping import Grouped, again_allowed, estimated_items, groups_for
from rep_recheck.options import EXIT_INTERRUPTED, EXIT_KEPT, EXIT_REMOVED, EXIT_USAGE
from rep_recheck.outputs import (
    Evidence,
    EvidenceMemo,
    ReportLines,
    Tally,
    summary_markdown,
)
from rep_recheck.pacing import PAGES_NOT_CHECKED
from rep_recheck.rechecker import Outcome, Rechecker
from rep_recheck.stopping import Held, Stopped
from rep_recheck.store import DocumentStore, OriginsEvidence
from rep_recheck.trail import RecheckTrail
from rep_recheck.warc import WarcDocuments


class Finishing:
    """A recheck's second step (:meth:`finish`), on what its first step made (the
    attributes below, set by :class:`~rep_recheck.command.Recheck`)."""

    options: argparse.Namespace
    err: TextIO
    config: RepConfig
    user_agent: str
    #: ``REP_PURPOSE_AGENTS`` as given: the trail's header names its presets.
    purpose_agents: Any
    shards: Shards
    datasets: list[Dataset]
    progress: Progress
    rechecker: Rechecker
    #: What the crawl is to fetch (``None``: the documents come from a WARC).
    request: FetchRequest | None
    #: The WARC's documents (``--documents``).
    warc: WarcDocuments | None
    #: What the capture nearest before each item's date said of it (``None``: no older
    #: capture given: :mod:`rep_recheck.asof`).
    then: Then | None = None
    #: Where the documents came from, as the summary says it.
    source: str
    #: The output folders (several shards), with their previous run's files to remove.
    folders: dict[str, list[Stale]]
    #: Why the fetch stopped before its end (``""``: it did not).
    interrupted: str = ""
    #: The pages asked for (``--pages``) that an interrupted fetch did not have.
    pages_missing: int = 0
    #: How many times the items, decided in the dataset's order, would make their
    #: origins' documents again, as its first pass counted them (``-1``: no first pass;
    #: a WARC's recheck reads its dataset once, and tells as it decides).
    again: int = -1
    #: The documents fetched now (``None``: from a WARC alone).
    store: DocumentStore | None = None
    #: What the run said at its start of the kinds of document its WARC holds none of
    #: (``""``: it holds some of each it needs): the first line of its summary.
    never_had: str = ""

    def finish(self, fetched: FetchResult | None, out: TextIO) -> int:
        """Every item decided and written; the summary; the exit status. The outputs are
        written under temporary names and renamed over their paths once all are whole;
        the summary on standard output is written once they are."""
        if fetched is not None and fetched.error is not None:
            raise fetched.error
        if fetched is not None and self.warc is not None:
            self.rechecker.documents = Completed(self.warc, fetched)
            self.source += (f"; what it lacks fetched now, {fetched.downloads:,} download(s) "
                            f"for {len(fetched.documents):,} origin(s)")  # fmt: skip
        elif fetched is not None:
            self.rechecker.documents = fetched.documents_of
            self.source = (f"fetched now, {fetched.downloads:,} download(s) for "
                           f"{len(fetched.documents):,} origin(s)")  # fmt: skip
        if fetched is not None and isinstance(fetched.documents, DocumentStore):
            fetched.documents.parsed_origins = self.config.recheck_parsed_origins
            self.store = fetched.documents
        staged = Staged()
        self.interrupted = fetched.interrupted if fetched is not None else ""
        for folder, stale in self.folders.items() if not self.interrupted else ():
            # an interrupted run writes no --out or --removed: the previous run's files
            # and manifest stay as they are (its --summary there is no shard of it)
            staged.folder(folder, stale)
        if self.options.report and not self.interrupted and self._report_among_shards():
            staged.report(self.options.report)
        self.pages_missing = 0
        if self.interrupted and self.request is not None and fetched is not None:
            self.pages_missing = len(set(self.request.pages) - fetched.pages.keys())
        # from the trail's end line to the run's end, a stop waits: all or none
        finishing = Held("its trail's run ended and its outputs put in place first: the run "
                         "is whole", armed=False, last=True)  # fmt: skip
        try:
            with finishing:
                tally, head = self._decide_all(fetched, staged, finishing)
                text = self._summary(tally, head)
                tally.close()
                if self.options.summary:
                    with io.TextIOWrapper(staged.open(self.options.summary), "utf-8") as file:
                        file.write(text)
                staged.commit()
                if not self.options.summary:
                    out.write(text)
                return self._exit_status(tally)
        except BaseException:
            staged.discard()  # no output that looks whole from a run stopped half-way
            raise

    def _report_among_shards(self) -> bool:
        """Whether the report is written in a folder a shard of this run is read from, or
        that a pattern of the run reaches (at any depth under its literal folder): a
        later run that reads that folder must know it for a report (its manifest names
        it: :meth:`~rep_recheck.files.Staged.report`), not a shard."""
        folder = Path(self.options.report).resolve().parent
        return any(Path(path).resolve().parent == folder
                   for path in self.shards.paths if path != STDIN) or any(
            folder.is_relative_to(reached) for reached in self.shards.reached
        )  # fmt: skip

    def _about(self) -> dict[str, Any]:
        """What the trail's run line says of the recheck."""
        options, shards = self.options, self.shards
        formats = list(dict.fromkeys(dataset.format for dataset in self.datasets))
        about: dict[str, Any] = {
            "dataset": shards.label,
            "format": ", ".join(formats),
            "documents": named_warcs(options.documents) or "fetched",
            "pages": bool(options.pages),
            "keep_unknown": bool(options.keep_unknown),
        }
        if self.rechecker.not_consulted:  # --consult: the items' declared scope
            about["not_consulted"] = list(self.rechecker.not_consulted)
        if shards.several:
            about["shards"] = list(shards.paths)
        return about

    def _decide_all(
        self, fetched: FetchResult | None, staged: Staged, finishing: Held
    ) -> tuple[Tally, str]:
        """Every item decided, shard by shard, its outputs written to ``staged``'s paths;
        the counts, and the trail's head (``""``: no trail; ``finishing`` armed before its
        end line: a stop then waits for the outputs in place). In the dataset's order,
        until its origins are made again more than ``REP_RECHECK_PARSED_ORIGINS`` times:
        the rest grouped by origin on disk (:mod:`~rep_recheck.grouping`), decided
        group by group, then written in the dataset's order."""
        options, rechecker, shards = self.options, self.rechecker, self.shards
        named = tuple(agent.lower() for agent in rechecker.rules.agents)
        tally = Tally(self.config.purpose, held=self.config.recheck_parsed_origins,
                      named_agents=named, keep_unknown=bool(options.keep_unknown))  # fmt: skip
        memo = OriginsEvidence(rechecker)
        memo.kept_said = bool(self.options.report)  # a filter reads none of a kept item's
        self.progress.begin()
        with ExitStack() as stack:
            report = (
                stack.enter_context(staged.open(options.report))
                if options.report and not self.interrupted
                else None
            )
            trail: RecheckTrail | None = None
            grouped: Grouped | None = None
            try:
                if options.trail:
                    if self.warc is not None:  # no first pass read them: before a line is written
                        self._check_shards()
                    with Held():  # its run line and setting lines whole: then a stop ends it
                        trail = RecheckTrail(Path(options.trail), rechecker, self._about(),
                                             self.user_agent, self.purpose_agents)  # fmt: skip
                    stack.callback(trail.file.close)
                read_again = fetched.pages if fetched is not None and options.pages else None
                lines = ReportLines(rechecker.not_consulted)
                outputs = _Outputs(staged, tally, memo, report, trail, read_again, lines)
                stack.enter_context(collector_paced())  # restored after ("Scale")
                for index, (path, dataset) in enumerate(zip(shards.paths, self.datasets,
                                                            strict=True)):  # fmt: skip
                    if grouped is not None:  # the rest of the dataset grouped by origin
                        for chunk in dataset.chunks(rows=self._writing):
                            grouped.add(index, chunk, origin_name, self._writing)
                            self._grouping_step(grouped)
                        continue
                    shard = path if shards.several else ""
                    if shard:
                        tally.shard(shard, dataset.format)
                    grouped = self._decide_shard(index, dataset, shard, outputs)
                    if grouped is not None:
                        stack.callback(grouped.close)
                if grouped is not None:
                    self._decide_grouped(grouped, outputs)
            except BaseException as error:  # a shard failed half-way: the run says so
                if trail is not None:
                    self._failed(trail, error, tally.statuses[UNREADABLE])
                raise
            end = EndReason.INTERRUPTED if self.interrupted else EndReason.FINISHED
            finishing.arm()
            head = trail.close(tally.statuses[UNREADABLE], end) if trail is not None else ""
        if not tally.items:
            raise DatasetError(f"{shards.label}: no item")
        return tally, head

    @property
    def _writing(self) -> bool:
        """Whether the kept or removed items are written (``--out``, ``--removed``)."""
        return bool(self.options.out or self.options.removed) and not self.interrupted

    def _check_shards(self) -> None:
        """Every shard opened and its first items read, before the trail is appended to
        (a recheck with a WARC reads no shard before it decides): one that cannot be read
        stops the run (:class:`DatasetError`) with the trail as it was, as the first pass
        of a recheck that fetches its documents does."""
        for dataset in self.datasets:
            chunks = dataset.chunks(rows=False)
            try:
                next(chunks, None)
            finally:
                close = getattr(chunks, "close", None)
                if close is not None:
                    close()

    def _failed(self, trail: RecheckTrail, error: BaseException, unreadable: int) -> None:
        """The trail's run ended by ``error`` after some items were written: its ``end``
        line says it failed, why, and counts the items it left (said on standard error)."""
        if isinstance(error, KeyboardInterrupt):
            by = f"by {error.name}" if isinstance(error, Stopped) else "(Ctrl-C)"
            why = f"stopped {by} while the items were decided"
        else:
            why = printable(str(error)) or type(error).__name__
        if trail.fail(why, unreadable):
            said = (f"--trail {printable(self.options.trail)}: the run ends as failed ({why}), "
                    f"with the {trail.counts['items']:,} item(s) decided before it stopped; "
                    "`audit verify` lists it")  # fmt: skip
            if isinstance(error, Stopped):  # said in the stop's one line
                error.trail = said
                return
            print(f"recheck: {said}", file=self.err, flush=True)

    def _summary(self, tally: Tally, head: str) -> str:
        """The summary's text; its lines of warning said on standard error too."""
        options, rechecker, config = self.options, self.rechecker, self.config
        identity_words = (f"agent `{rechecker.agent}` (User-Agent `{self.user_agent}`), "
                          f"profile {config.profile}")  # fmt: skip
        notes = [*agents_obeyed(rechecker), *scope_note(rechecker)]
        lines = summary_markdown(tally, self.shards.label, self.source, identity_words,
                                 options.keep_unknown, notes)  # fmt: skip
        if self.interrupted:
            stopped = self._interrupted_line()
            lines[1:1] = ["", f"**{stopped}**"]
            print(f"recheck: {stopped}", file=self.err, flush=True)
        if self.never_had:  # said on standard error as it started
            lines[1:1] = ["", f"**{self.never_had[0].upper()}{self.never_had[1:]}.**"]
        elif (unchecked := self._tdmrep_unchecked()) is not None:
            lines[1:1] = ["", f"**{unchecked}**"]
            print(f"recheck: {unchecked}", file=self.err, flush=True)
        if not rechecker.agent:  # a User-Agent of no product token: `*` alone (RFC 9309 §2.2.1)
            nameless = (f"The User-Agent `{printable(self.user_agent)}` names no crawler (it "
                        "starts with no product token): only robots.txt's `*` groups were read "
                        "for it, never a group of the crawler that fetched the data; name it "
                        "(-A NAME/VERSION, e.g. -A CCBot/2.0 for Common Crawl's)")  # fmt: skip
            lines[1:1] = ["", f"**{nameless}.**"]
            print(f"recheck: {nameless}", file=self.err, flush=True)
        if self.warc is not None and (later := self.warc.captured_later_line()) is not None:
            lines[1:1] = ["", f"**{later}**"]
            print(f"recheck: {later}", file=self.err, flush=True)
        if self.then is not None and (near := self.then.near_line()) is not None:
            lines += ["", near]  # said on standard error at the end
        if not options.pages:
            lines += ["", PAGES_NOT_CHECKED]
            print(f"recheck: {PAGES_NOT_CHECKED}", file=self.err, flush=True)
        if options.trail:
            lines += ["", f"Trail: `{options.trail}`, head `{head}` (`python -m scrapy_rep "
                      f"audit verify {options.trail}`)"]  # fmt: skip
        return "\n".join(lines) + "\n"

    def _exit_status(self, tally: Tally) -> int:
        """The exit status, after the lines that warn of the items that could not be
        read (and of those whose date could not be)."""
        self._say_undated()
        label = self.shards.label
        for (number, why), shard in zip(tally.unreadable, tally.unreadable_in, strict=True):
            print(printable(f"scrapy_rep: warning: {shard or label}: line {number}: "
                            f"{why} (removed)"), file=self.err)  # fmt: skip
        if self.interrupted:
            return EXIT_INTERRUPTED
        if tally.statuses[UNREADABLE] == tally.items:  # nothing decided: bad input
            print(printable(f"scrapy_rep: error: {label}: no item could be read"), file=self.err)
            return EXIT_USAGE
        return EXIT_REMOVED if tally.removed else EXIT_KEPT

    def _writers(self, stack: ExitStack, dataset: Dataset, shard: str, staged: Staged) -> list[Any]:
        """The writers of a shard's kept and removed items (``None``: not written; an
        interrupted fetch writes neither: no collection or removed items that would look
        whole), closed with ``stack``."""
        options = self.options
        writers: list[Any] = []
        for path, removed in ((options.out, False), (options.removed, True)):
            if path is None or self.interrupted:
                writers.append(None)
                continue
            target = output_of(path, shard) if shard else path
            # compressed as its name says: a shard's own name, as the shard is
            writer = dataset.writer(staged.open(target), removed, compression_of(target))
            writers.append(stack.enter_context(Closing(writer)))
        return writers

    @staticmethod
    def _write(writers: list[Any], chunk: Chunk, keep: list[bool], reasons: list[Any]) -> None:
        """A chunk's kept items to ``--out``, its removed ones with their ``reasons`` to
        ``--removed`` (each writer ``None``: not written)."""
        kept, removed = writers
        if kept is not None:
            kept.write(chunk, keep)
        if removed is not None:
            removed.write(chunk, [not k for k in keep], reasons)

    def _kept(self, status: str) -> bool:
        """Whether an item of ``status`` is kept (an unknown one with --keep-unknown)."""
        keep_unknown = self.options.keep_unknown
        return status == ItemStatus.KEPT or (status == ItemStatus.UNKNOWN and keep_unknown)

    def _decide_shard(
        self, index: int, dataset: Dataset, shard: str, outputs: _Outputs
    ) -> Grouped | None:
        """One file's items decided in its order (``shard``: its path, when the
        collection is several), its kept and removed items written to their own files
        (the origins never fetched of an interrupted fetch are unknown, kept by
        --keep-unknown). Once its origins were made again more than
        ``REP_RECHECK_PARSED_ORIGINS`` times, the rest of its items in a
        :class:`~rep_recheck.grouping.Grouped` (its writers held open), returned."""
        options, rechecker, progress = self.options, self.rechecker, self.progress
        tally, memo, report, trail = outputs.tally, outputs.memo, outputs.report, outputs.trail
        read_again = outputs.read_again
        dated = bool(options.date_column)
        again = again_allowed(self.config.recheck_parsed_origins)
        grouping = self.again > again  # the first pass counted them: grouped from the start
        with ExitStack() as stack:
            writers = self._writers(stack, dataset, shard, outputs.staged)
            removing = writers[1] is not None
            chunks = iter(dataset.chunks(rows=any(writers)))
            for chunk in chunks:
                if grouping or rechecker.asked - len(tally.origins) > again:
                    grouped = self._grouping(index, tally)
                    grouped.writers = writers  # for the rest of its items
                    grouped.held.push(stack.pop_all())
                    try:
                        for rest in itertools.chain([chunk], chunks):
                            grouped.add(index, rest, origin_name, self._writing)
                            self._grouping_step(grouped)
                    except BaseException:  # Ctrl-C, a dataset that cannot be read
                        grouped.close()
                        raise
                    return grouped
                keep: list[bool] = []
                reasons: list[tuple[str, str] | None] = []
                for item in chunk.items:
                    item, status, said, outcome = decide_item(
                        item, rechecker, read_again, trail, memo, shard, self.then, dated
                    )
                    tally.add(item, status, said, origin_name(item.url))
                    kept = self._kept(status)
                    keep.append(kept)
                    if removing:
                        reasons.append(None if kept else (status, removed_why(item, outcome, memo)))
                    if report is not None:
                        why = item.problem or (outcome.why if outcome is not None else "")
                        report.write(outputs.lines.line(item, status, said, why, shard))
                self._write(writers, chunk, keep, reasons)
                progress.tick(tally.items, len(tally.origins))
        return None

    def _grouping_step(self, grouped: Grouped) -> None:
        self.progress.step(f"grouping the items by origin on disk: {grouped.items:,} read")

    def _grouping(self, shard: int, tally: Tally) -> Grouped:
        """Where the rest of the dataset is grouped by origin, from shard number
        ``shard`` on (said on standard error)."""
        # the files read: a dataset from standard input is its copy's size
        total = self.progress.total or estimated_items([str(d.path) for d in self.datasets])
        grouped = Grouped(groups_for(total), shard)
        if tally.items:
            again = self.rechecker.asked - len(tally.origins)
            why = (f"the first {tally.items:,} items, decided in the dataset's order, made "
                   f"their origins' documents again {again:,} times")  # fmt: skip
        else:
            why = (f"decided in the dataset's order, its items would make their origins' "
                   f"documents again {self.again:,} times (its first pass)")  # fmt: skip
        print(f"recheck: {why} (they visit more origins than REP_RECHECK_PARSED_ORIGINS, "
              f"{self.config.recheck_parsed_origins:,}, in no particular order): "
              f"{'the rest' if tally.items else 'they'} are grouped by origin on disk "
              f"({grouped.groups:,} group(s)), each origin's documents made once, and "
              "written in the dataset's order", file=self.err, flush=True)  # fmt: skip
        return grouped

    def _decide_grouped(self, grouped: Grouped, outputs: _Outputs) -> None:
        """The items of ``grouped`` decided group by group, origin by origin, then
        written in the dataset's order: the report's and the trail's lines, the kept and
        removed items of each shard, the counts, as :meth:`_decide_shard` writes them."""
        options, rechecker, progress = self.options, self.rechecker, self.progress
        tally, memo, trail = outputs.tally, outputs.memo, outputs.trail
        read_again = outputs.read_again
        dated = bool(options.date_column)
        labels = [path if self.shards.several else "" for path in self.shards.paths]
        number = tally.origins.number
        removing = bool(options.removed) and not self.interrupted

        def decide(record: tuple[Any, ...]) -> tuple[Any, ...]:
            shard, line, url, then, date, name = record
            item, status, said, outcome = decide_item(
                Item(line, url, "", then, date), rechecker, read_again, trail, memo,
                labels[shard], self.then, dated,
            )  # fmt: skip
            writes = None
            if trail is not None and trail.recording:
                writes, trail.recording = trail.recording, []
            assert outcome is not None  # its URL was read
            # with --removed, a refused item's why too (the report says none)
            why = removed_why(item, outcome, memo) if removing else outcome.why
            return item.then, status, _evidence_values(said), why, number(name), writes

        settle = None
        if trail is not None:
            trail.recording = []
            settle = lambda results: trail.settle([r[5] for r in results])  # noqa: E731
        decided = tally.items
        held = self.config.recheck_parsed_origins
        for _ in grouped.decide(decide, settle, rechecker.forget, held):
            progress.tick(decided + grouped.decided, len(tally.origins))
        if trail is not None:
            trail.recording = None
        # Every item decided: writing them back asks for no origin's documents, so those
        # held parsed (REP_RECHECK_PARSED_ORIGINS of them, 18 KiB each in the corpus)
        # are let go before the counts and the trail's sites grow by each origin; with
        # older captures, those of each crawl's decider of ``then`` too.
        rechecker.forget()
        memo.clear()
        if self.store is not None:
            self.store.drop_parsed()
        if self.then is not None:
            self.then.forget()
        self._write_back(grouped, outputs, labels)

    def _write_back(self, grouped: Grouped, outputs: _Outputs, labels: list[str]) -> None:
        """The items of ``grouped`` written in the dataset's order, each shard's kept and
        removed items to its own files."""
        tally, memo, report, trail = outputs.tally, outputs.memo, outputs.report, outputs.trail
        current, writers, written = grouped.shard, grouped.writers, 0
        evidences: dict[tuple[Any, ...], Evidence] = {}
        for index, items, data, results in grouped.replay():
            while current < index:  # the next shard (one with no item too)
                grouped.held.close()
                current += 1
                writers = self._next_shard(grouped, current, labels[current], outputs)
            shard = labels[index]
            chunk: list[Item] = []
            keep: list[bool] = []
            reasons: list[tuple[str, str] | None] = []
            for (line, url, problem, then, date), result in zip(items, results, strict=True):
                if result is None:  # not decided: its URL could not be read
                    item, status, said, _ = decide_item(
                        Item(line, url, problem, then, date), self.rechecker, None, None, memo
                    )  # fmt: skip
                    why = removed = problem
                    tally.add(item, status, said, "")
                else:
                    then, status, values, why, origin, writes = result
                    known = evidences.get(values)
                    if known is None:  # the items of an origin's line share theirs
                        if len(evidences) >= _EVIDENCES:
                            evidences.clear()
                        known = evidences[values] = Evidence(*values)
                    said = known
                    item = Item(line, url, problem, then, date)
                    tally.add(item, status, said, origin)
                    if writes and trail is not None:
                        trail.replay(writes)
                    removed, why = why, ("" if status == ItemStatus.REFUSED else why)
                chunk.append(item)
                keep.append(kept := self._kept(status))
                reasons.append(None if kept else (status, removed))
                if report is not None:
                    report.write(outputs.lines.line(item, status, said, why, shard))
            self._write(writers, Chunk(chunk, data), keep, reasons)
            written += len(chunk)
            self.progress.step(f"writing the grouped items in the dataset's order: "
                               f"{written:,} of {grouped.items:,} written")  # fmt: skip
        while current < len(labels) - 1:  # the shards after the last item
            grouped.held.close()
            current += 1
            self._next_shard(grouped, current, labels[current], outputs)
        grouped.held.close()

    def _next_shard(self, grouped: Grouped, index: int, label: str, outputs: _Outputs) -> list[Any]:
        """Shard number ``index``'s writers, held by ``grouped`` until the next; its
        items counted as its own from now."""
        if label:
            outputs.tally.shard(label, self.datasets[index].format)
        return self._writers(grouped.held, self.datasets[index], label, outputs.staged)

    def _say_undated(self) -> None:
        """The lines that count the items whose date could not be read, and those dated
        before their origin's first capture."""
        if self.then is not None and self.then.undated:
            print(f"recheck: {self.then.undated_line(self.options.date_column)}", file=self.err)
        if self.then is not None and (near := self.then.near_line()) is not None:
            print(f"recheck: {near}", file=self.err)

    def _tdmrep_unchecked(self) -> str | None:
        """The line that says a WARC held no tdmrep.json for origins whose items an AI
        purpose needs it for (``None``: it held every one needed)."""
        warc = self.warc
        if warc is None or not warc.without_tdmrep:
            return None
        filled = getattr(self.rechecker.documents, "filled", 0)
        lacking = warc.without_tdmrep - filled
        if lacking <= 0:
            return None
        fetch = "" if self.options.fetch_missing else (
            " --fetch-missing fetches now only what the WARC lacks."
        )  # fmt: skip
        return (f"TDMRep not checked for {lacking:,} of {warc.origins:,} origin(s): the WARC "
                "holds no tdmrep.json for them (a Common Crawl robots.txt WARC holds none), so "
                f"their items are unknown for {', '.join(self.config.purpose)} unless their "
                f"robots.txt refuses them already.{fetch}")  # fmt: skip

    def _interrupted_line(self) -> str:
        """What an interrupted run says first, in its summary and on standard error."""
        asked = len(self.request.origins) if self.request is not None else 0
        pages = f", {self.pages_missing:,} page(s) not fetched" if self.pages_missing else ""
        return (f"Interrupted ({self.interrupted}): the fetch stopped before every "
                f"document was had ({asked:,} origin(s) asked for{pages}); the items of the "
                "origins (and pages) not fetched are unknown. Not a whole recheck: --out, "
                "--removed and --report were not written (exit status "
                f"{EXIT_INTERRUPTED}).")  # fmt: skip


def removed_why(item: Item, outcome: Outcome | None, memo: EvidenceMemo) -> str:
    """Why an item is removed, as ``--removed`` says it beside its status: why it could
    not be read, the refusal's sentence (remembered by ``memo``), or why it is unknown."""
    if outcome is not None and outcome.status is ItemStatus.REFUSED:
        return memo.refusal(outcome)
    return item.problem or (outcome.why if outcome is not None else "")


def named_warcs(warcs: Sequence[str] | None) -> str | list[str] | None:
    """The WARC(s) of ``--documents`` as the trail's header names them."""
    if not warcs:
        return None
    return warcs[0] if len(warcs) == 1 else list(warcs)


#: An item's evidence as the values of its fields, in order (a grouped recheck stores
#: them so: a tuple is pickled by C code, an :class:`Evidence` by Python's).
_evidence_values: Final = operator.attrgetter(*Evidence.__slots__)
#: The evidence made again from its values that a grouped recheck's writing keeps at
#: hand (then it starts again).
_EVIDENCES: Final = 4_096


@dataclass(frozen=True)
class _Outputs:
    """Where a recheck's items go as they are decided: its staged files, its counts,
    the evidence memo, the report and the trail (``None``: not written), the pages
    fetched again (``--pages``), and the report's lines."""

    staged: Staged
    tally: Tally
    memo: EvidenceMemo
    report: IO[bytes] | None
    trail: RecheckTrail | None
    read_again: dict[str, PageAgain] | None
    #: The report's lines, each outcome's part encoded once.
    lines: ReportLines
