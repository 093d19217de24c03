"""``audit verify``: the whole check of a trail, in one pass (pure).

1. The hash chain (:class:`rep_engine.trail.read.Trail`): every line's ``prev`` is the
   SHA-256 of the line before; a cut file or gzip stream shows.
2. Each run is whole: it starts with a ``run`` line (its id used by no other run line),
   ends with an ``end`` line whose counts match its ``url`` lines, and has no line after
   its ``end`` line, nor after a ``repair`` line that ended it: a repair records a cut,
   it does not account for what the cut took, so a run still open at a repair is
   reported as having no end line. A repair line is valid only right after a line of a
   run left open (the cut took that run's next line); anywhere else (after whole runs,
   after another repair) it accounts for no line of a run and is reported. A crawl (a
   run and the runs that resume it, named by their ``resumes``) has one final record
   per request id, and a run that resumes another (``JOBDIR``) finds it before it in
   this trail, or in another one given with it, ending in the line its header names
   (``resumes_head``).
3. Every snapshot a ``snapshot`` line announces is present and its bytes hash to its name
   (no snapshot folder at all, a trail copied without it: one finding for the file).
4. Every decision is re-derived from its snapshots with today's engine
   (:class:`rep_audit.rederive.Rederiver`).
5. The tree heads and the sites' chains (:class:`rep_audit.treeheads.TreeChecks`): each
   head's size, root, frontier and signature (``key``: the operator's public key), each
   record's ``site_prev`` and each ``site`` line; and the heads of a head file given.
6. What a record says of its page's output is as the crawl writes it
   (:func:`output_problems`), and the items its page pass let through add up to its run's
   end line's ``items_passed`` (:func:`passed_problems`): no record says more (a later
   component drops only items the page pass let through); the items the errbacks of its
   failed and refused requests yielded, to its ``errback_items``.

Problems are :class:`Finding` (line number, URL, sentence), in file order, handed to the
caller's ``sink`` as they are found (the command line prints each at once); the result
keeps their count and the first :data:`KEEP_FINDINGS`, so memory does not grow with them.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final

from rep_audit.findings import KEEP_FINDINGS, Finding, Verification
from rep_audit.items import ItemOrder, item_differences
from rep_audit.rederive import Rederiver
from rep_audit.runchecks import RunChecks, RunState
from rep_audit.runcontext import RunContext, fold_setting
from rep_audit.sendtimes import sent_after_expiry, when_sent
from rep_audit.treeheads import TreeChecks, head_file_entries, key_file
from rep_engine.records import FATES, text
from rep_engine.trail.read import TYPES, Line, Trail

#: The counts a fetched page's record gives of its output (docs/audit-trail.md, "url
#: records"): the page pass's items kept and dropped, those a later component dropped, the
#: links not followed.
OUTPUT_COUNTS: Final = ("items_kept", "items_dropped", "items_not_kept", "links_not_followed")
#: What the record of a download failed or refused may say of its errback's items: those
#: kept (a count), and none dropped (no page pass read them).
ERRBACK_COUNTS: Final[dict[str, Callable[[Any], bool]]] = {
    "items_kept": lambda value: type(value) is int and value >= 0,
    "items_dropped": lambda value: type(value) is int and value == 0,
}
#: A line's hash as ``--head`` gives it (anything else names a head file).
_SHA256: Final = re.compile(r"[0-9a-fA-F]{64}")
#: The other fields only a fetched page's record has: why its items were dropped, and the
#: links not followed.
OUTPUT_WORDS: Final = ("item_reason", "item_why", "not_followed")


def count_passed(number: int, record: dict[str, Any], run: RunState) -> None:
    """The items a fetched page's record says its page pass let through (``items_kept``
    and ``items_not_kept``, each a count), added to its run's (:attr:`RunState.passed`); a
    failed or refused one's, its errback's (:attr:`RunState.errback`)."""
    fate = text(record.get("fate"))
    if fate in ("failed", "refused"):
        kept = record.get("items_kept", 0)
        run.errback += kept if type(kept) is int and kept > 0 else 0
        return
    if fate != "fetched":
        return
    counts = [record.get("items_kept", 0), record.get("items_not_kept", 0)]
    if any(type(value) is not int or value < 0 for value in counts):
        return  # not a count: said by output_problems
    kept, not_kept = counts
    run.passed += kept + not_kept
    if run.most is None or kept + not_kept > run.most[2] + run.most[3]:
        run.most = (number, str(record.get("url", "")), kept, not_kept)


def passed_problems(end: int, counts: dict[str, Any], run: RunState) -> list[tuple[int, str, str]]:
    """Where ``run``'s records of fetched pages say more items passed than its end line
    (line ``end``, its ``counts``) counts as let through by its page pass
    (``items_passed``): (line, URL, sentence). None for a run whose end line has no
    ``items_passed`` (a crawl of an earlier release, a recheck)."""
    said = counts.get("items_passed")
    if said is None:
        return []
    if type(said) is not int or said < 0:
        return [(end, "", f"the end line's items_passed {said!r} is not a count (a whole "
                 "number, 0 or more)")]  # fmt: skip
    found = []
    if run.most is not None and run.most[2] + run.most[3] > said:
        number, url, kept, not_kept = run.most
        claim = (f"items_not_kept {not_kept} is" if not_kept > said else
                 f"items_kept {kept} and items_not_kept {not_kept} are")  # fmt: skip
        found.append((number, url, f"{claim} more than the {said} item(s) its page pass let "
                      f"through in its whole run (the end line's items_passed, line {end}): "
                      "a component of the crawl drops only items the page pass let "
                      "through"))  # fmt: skip
    if run.passed != said:
        found.append((end, "", f"run {run.context.run[:8]}: the end line counts {said} "
                      f"item(s) its page pass let through (items_passed), the run's page "
                      f"records {run.passed} (their items_kept and items_not_kept: a "
                      "record changed, added or deleted)"))  # fmt: skip
    errback = counts.get("errback_items", 0)
    if run.errback != errback:
        found.append((end, "", f"run {run.context.run[:8]}: the end line counts {errback!r} "
                      "item(s) the errbacks of failed or refused requests yielded "
                      f"(errback_items), the run's records {run.errback} (their items_kept: "
                      "a record changed, added or deleted)"))  # fmt: skip
    return found


def output_problems(record: dict[str, Any]) -> list[str]:
    """What ``record`` (a ``url`` record) says of its page's output that the crawl never
    writes: a count that is not a whole number of 0 or more (a string, a bool, a negative
    number), or any of it on the record of a request that was not fetched (only a page
    whose callback ran has items and links; a record of an unknown fate is said
    already), but the ``items_kept`` of a failed or refused one (its errback's items, no
    page's) and its ``items_dropped`` 0."""
    found = []
    fate = text(record.get("fate"))
    if fate in FATES and fate != "fetched":
        errback = ERRBACK_COUNTS if fate in ("failed", "refused") else {}
        for name in (*OUTPUT_COUNTS, *OUTPUT_WORDS):
            if name in record and not (name in errback and errback[name](record[name])):
                found.append(f"a {fate} record says {name} {record[name]!r}: only a fetched "
                             "page's record says what its output was (a failed or refused "
                             "one, the items its errback yielded)")  # fmt: skip
        return found
    for name in OUTPUT_COUNTS:
        value = record.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            found.append(f"{name} {value!r} is not a count (a whole number, 0 or more)")
    return found


class Verifier(RunChecks):
    """One trail's checks, fed its lines in order: its runs (:class:`RunChecks`), and
    each record's snapshots and decision."""

    def __init__(
        self, trail: Trail, sink: Callable[[Finding], object] | None, keep: int,
        key: str | None = None, anchors: list[dict[str, Any]] | None = None, tree: bool = True,
    ) -> None:  # fmt: skip
        """``tree``: the tree heads and sites' chains checked (not in a site's bundle,
        which holds some of the lines: :mod:`rep_audit.bundlecheck`)."""
        self.rederiver = Rederiver(trail.snapshots)
        super().__init__(trail.path, sink, keep, self.rederiver.crawls)
        self.trail = trail
        self.tree = TreeChecks(self.add, key_file(key), str(key), anchors) if tree else None
        #: The first 8 bytes of the SHA-256 of (crawl, request id) of each final record: a
        #: crawl and its JOBDIR resumes write one final record per request (~80 bytes each).
        self.final: set[bytes] = set()
        #: Without a snapshot folder: the snapshots it lacks, and the records that could
        #: not be re-derived for it (one finding for them all, at the end).
        self.unfoldered = Counter[str]()
        #: Each run's place in its dataset: one ``item`` record per line.
        self.item_order = ItemOrder()

    def feed(self, line: Line) -> None:
        record = line.record
        if self.pending is not None and record is not None and line.type in TYPES:
            self.flush()
        if line.problem:
            self.add(line.number, "", line.problem)
        if self.tree is not None:
            self.tree.feed(line)
        kind = line.type
        if kind in ("site", "head"):  # after the run's end line: the tree's checks
            self.previous = (kind, self.runs.get(text((record or {}).get("run"))))
            return
        run = self.run_of(line)
        if run is None or record is None:
            return
        if kind == "setting":
            fold_setting(run.header, record)
            run.context = RunContext.of(run.header)
            run.counts[f"setting {record.get('name')}"] += 1
        elif kind == "snapshot":
            self._snapshot(line.number, record)
        elif kind == "url":
            self._url(line.number, record, run)
        elif kind == "item":
            self._item(line.number, record, run)
        elif kind == "file":
            # A media file's own statements are in its bytes, which the trail does not
            # keep: its decision is taken as recorded (docs/audit-trail.md).
            run.counts["files"] += 1
        elif kind == "end":
            counts = self.end(line, record, run)
            for number, url, what in passed_problems(line.number, counts, run):
                self.add(number, url, what)
        else:
            self.add(line.number, "", f"unknown line type {kind!r}")

    def _snapshot(self, number: int, record: dict[str, Any]) -> None:
        self.result.snapshots += 1
        self.rederiver.saw_snapshot(record)
        sha = str(record.get("sha256", ""))
        store = self.trail.snapshots
        if not store.sound(sha) and store.checked[sha] == store.no_folder:
            self.unfoldered["snapshots"] += 1
        elif not store.sound(sha):
            self.add(number, str(record.get("url", "")),
                     f"snapshot {sha[:12]}… {store.checked[sha]}")  # fmt: skip

    def _url(self, number: int, record: dict[str, Any], run: RunState) -> None:
        self.result.records += 1
        url = str(record.get("url", ""))
        run.counts["url"] += 1
        run.counts[str(record.get("fate"))] += 1
        request = f"{run.story}\n{record.get('id') or url}"
        key = hashlib.sha256(request.encode()).digest()[:8]
        if key in self.final:
            self.add(number, url, "a second final record for the same request id")
        self.final.add(key)
        if text(record.get("fate")) not in FATES:
            self.add(number, url, f"unknown fate {record.get('fate')!r}")
        context = run.context
        count_passed(number, record, run)
        self._add_all(number, url, [
            *output_problems(record),
            *self._folder(self.rederiver.differences(record, context)),
            *sent_after_expiry(record, context.overrides),
            *when_sent(record, run.first_start, context.overrides, context.longest_use),
        ])  # fmt: skip
        for what in self.rederiver.events:
            self.add(number, url, what, event=True)

    def _item(self, number: int, record: dict[str, Any], run: RunState) -> None:
        """A recheck's stored item (``item``), decided again from its snapshots."""
        self.result.records += 1
        run.counts["items"] += 1
        differences = item_differences(record, run.context, self.rederiver)
        if misplaced := self.item_order.place(run.context, record):
            differences.append(misplaced)
        self._add_all(number, str(record.get("url", "")), self._folder(differences))

    def _folder(self, differences: list[str]) -> list[str]:
        """``differences`` but those for the want of a snapshot folder (counted, said
        once for all in :meth:`finish`)."""
        no_folder = self.trail.snapshots.no_folder
        if no_folder and any(what.endswith(no_folder) for what in differences):
            self.unfoldered["records"] += 1
            differences = [what for what in differences if not what.endswith(no_folder)]
        return differences

    def _add_all(self, number: int, url: str, found: list[str]) -> None:
        for what in found:
            self.add(number, url, what)

    def finish(self) -> Verification:
        result = self.result
        chain = self.trail.chain
        result.lines, result.head = chain.lines, chain.head
        result.tree = self.tree.finish() if self.tree is not None else ""
        for problem in chain.problems:
            self.add(0, "", problem)
        if self.unfoldered:
            folder = self.trail.snapshots.directory
            self.add(0, "", f"there is no snapshot folder {folder} (a trail copied without "
                     f"it?): {self.unfoldered['snapshots']} snapshot(s) cannot be checked, "
                     f"nor {self.unfoldered['records']} record(s) re-derived from "
                     "them")  # fmt: skip
        self.finish_runs()
        return result


def verify(
    path: str | Path, heads: Iterable[str] = (), sink: Callable[[Finding], object] | None = None,
    keep: int = KEEP_FINDINGS, also: Sequence[str | Path] = (), key: str | None = None,
) -> Verification:  # fmt: skip
    """Check the trail at ``path`` (raises :class:`rep_engine.trail.read.TrailError` when
    it is not a trail at all, or ``key`` or a head file cannot be read). ``heads``: hashes
    of lines written down earlier (a former :attr:`Verification.head`), or the root of a
    tree head the crawl logged; each must still be the hash of a line of the chain (or the
    root of the lines before one of its tree heads), so a change of what was then the
    last line, or a cut at a line boundary, shows too; or a head file
    (``REP_AUDIT_HEAD_FILE``), each of its heads of this trail held to the lines it covers.
    ``key``: the operator's public key file, each tree head's signature checked with it.
    ``sink`` is called with each finding and event as it is found (in file order; those
    of the file as a whole last); the result keeps the first ``keep`` findings and counts
    them all. ``also``: the other trails checked with this one (several workers'): a
    snapshot is looked for in their folders too."""
    trail = Trail(path, also, any_schema=True)  # its runs' schemas are findings
    heads = [head.strip() for head in heads]
    files = [head for head in heads if not _SHA256.fullmatch(head)]
    anchors = [entry for name in files for entry in head_file_entries(name, trail.path)]
    verifier = Verifier(trail, sink, keep, key, anchors if files else None)
    verifier.others = [Path(other) for other in also if Path(other) != trail.path]
    wanted = {head.lower() for head in heads if head not in files}
    for line in trail.lines():
        if wanted and line.type == "head" and verifier.tree is not None:  # as the crawl logs it
            wanted.discard(verifier.tree.tree.root().hex())  # the root of the lines before
        verifier.feed(line)
        wanted.discard(trail.chain.head)
    result = verifier.finish()
    for head in sorted(wanted):
        what = (
            f"no line hashes to the head {head} written down earlier, nor is it a tree "
            "head's root of the lines before it: a line up to it was changed or cut"
        )
        verifier.add(0, "", what)
    verifier.flush()
    return result
