"""Refusal reasons are :class:`scrapy_rep.Reason` members, never words matched in code;
the trail's words are defined once, in its contract (``rep-engine/rep_engine/records.py``).

Every module of the four parts is read (its AST): no comparison may hold a reason,
or the trail's ``refused_by``, against one of their words (``reason == "forbidden"``,
``reason in ("nofollow", "rel_nofollow")``, ``by == "robots.txt"``), and no table may be
keyed by reason words (``{"forbidden": …, "purpose": …}``): a word said
twice is a reason that can drift. The members are ``str``: the words logs,
stats, signals and the audit trail say are unchanged. And no module but the contract
defines an enum of the words of a fate, a reason, a status or what refused, or a table
(at module or class level) that lists two or more of them, as words or as members: every
other table of them is derived from the contract's rows.
"""

from __future__ import annotations

import ast
import json

import pytest

from rep_engine.directives import FLAGS, KEYED
from rep_engine.records import (
    REFUSED_BY,
    Dropped,
    Fate,
    FileFate,
    ItemStatus,
    RefusedBy,
    SnapshotOutcome,
)
from rep_engine.trail.file import _ENCODE as encode  # the one encoder of trail lines
from rep_engine.verdict.signals import Where
from scrapy_rep import Reason
from tests.support.paths import DOCS, ENGINE, PACKAGES, ROOT

#: The words of every reason and of the trail's ``refused_by``.
WORDS = frozenset(reason.value for reason in Reason)
TRAIL_WORDS = WORDS | {by.value for by in RefusedBy}
#: Names that hold a reason (or what the trail says refused it).
REASON_NAMES = ("reason", "refused_by", "refused")


def _strings(node: ast.expr) -> list[str]:
    """The string literals ``node`` is: one, or a tuple, list or set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for element in node.elts for s in _strings(element)]
    return []


def _holds_reason(node: ast.expr) -> bool:
    """Whether ``node`` reads a reason: a name or attribute called after one, or a
    record's ``refused_by`` / ``item_reason`` (``record.get("refused_by")``)."""
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute):
        name = node.attr
    elif isinstance(node, (ast.Call, ast.Subscript)):
        return any(
            isinstance(inner, ast.Constant) and inner.value in ("refused_by", "item_reason")
            for inner in ast.walk(node)
        )
    else:
        return False
    return name == "by" or any(word in name.lower() for word in REASON_NAMES)


def string_matches(source: str) -> list[str]:
    """Every place ``source`` matches a reason as a word (line: what)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            literals = [s for side in sides for s in _strings(side)]
            words = sorted(TRAIL_WORDS.intersection(literals))
            if words and any(_holds_reason(side) for side in sides):
                found.append(f"{node.lineno}: a reason compared with {words}")
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if len(WORDS.intersection(keys)) > 1:
                found.append(f"{node.lineno}: a table keyed by {sorted(WORDS & set(keys))}")
    return found


def test_no_module_matches_a_reason_as_a_string() -> None:
    found = {
        str(path.relative_to(ROOT)): matches
        for package in PACKAGES
        for path in sorted(package.rglob("*.py"))
        if (matches := string_matches(path.read_text(encoding="utf-8")))
    }
    assert found == {}


@pytest.mark.parametrize(
    "source",
    [
        'if reason == "forbidden": pass',
        'if verdict.reason != "purpose": pass',
        'if reason in ("nofollow", "rel_nofollow"): pass',
        'if record.refused == "robotstxt_unreachable": pass',
        'if by == "robots.txt": pass',
        'if text(record.get("refused_by")) in {"purpose", "closed"}: pass',
        'TABLE = {"forbidden": "robots.txt", "purpose": "purpose"}',
    ],
)
def test_the_check_sees_a_reason_matched_as_a_string(source: str) -> None:
    assert string_matches(source)


def test_the_check_lets_members_and_other_words_be() -> None:
    source = (
        "if reason is Reason.FORBIDDEN: pass\n"
        "if reason in LINK_REASONS: pass\n"
        'if kind == "tdmrep.json": pass\n'
        'if reason != "finished": pass\n'  # Scrapy's close reason
        'if name == "unavailable_after": pass\n'  # a directive
        'FLAGS = {"noindex": False}\n'
    )
    assert string_matches(source) == []


def test_a_reason_is_its_word_wherever_it_is_written() -> None:
    """Stats names, log lines, signal handlers and the trail's JSON say the word."""
    reason = Reason.ROBOTSTXT_UNREACHABLE
    assert reason == "robotstxt_unreachable" and isinstance(reason, str)
    assert f"rep/requests/dropped/{reason}" == "rep/requests/dropped/robotstxt_unreachable"
    assert "%s" % reason == str(reason) == "robotstxt_unreachable"  # noqa: UP031 (logging)
    record = {"refused_by": REFUSED_BY[Reason.FORBIDDEN], "item_reason": Reason.NOINDEX}
    assert encode(record) == '{"refused_by":"robots.txt","item_reason":"noindex"}'
    assert json.loads(encode(record)) == {"refused_by": "robots.txt", "item_reason": "noindex"}
    assert {"forbidden": 1}[Reason.FORBIDDEN] == 1 and {Reason.PURPOSE: 1}["purpose"] == 1


def test_a_word_read_back_is_a_member_or_none() -> None:
    """A trail is read at its edge: a word we write is its member, anything else (a
    hand-edited trail, another add-on's reason) is ``None``, never an error."""
    assert Reason.of("spider_closed") is Reason.SPIDER_CLOSED
    assert RefusedBy.of("robots.txt") is RefusedBy.ROBOTS_TXT
    for odd in ("Forbidden", "", None, 3, ["forbidden"], {"a": 1}):
        assert Reason.of(odd) is None
        assert RefusedBy.of(odd) is None


def test_the_docs_name_every_reason_of_the_signals() -> None:
    """docs/reference.md's signals table names every reason a signal can carry."""
    page = (DOCS / "reference.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if "_refused` |" in line]
    said = " ".join(rows)
    missing = [r.value for r in Reason if f"`{r.value}`" not in said]
    assert missing == []


#: The trail's contract: the one module that defines its words and their tables.
CONTRACT = ENGINE / "records.py"
#: The contract's enums of words: a fate, a reason, a status, what refused.
VOCABULARIES = (Reason, Dropped, Fate, FileFate, ItemStatus, RefusedBy)
#: Words other vocabularies own, which some of the contract's borrow: the page
#: directives (SPEC §6: ``noindex``, ``nofollow``) and where a statement is read (a
#: document's name: ``robots.txt``, ``tdmrep.json``). As a string they name a directive or
#: a document; as a member (``Reason.NOINDEX``), the contract's word.
BORROWED = frozenset(FLAGS) | {where.value for where in Where}
#: The contract's words as a string says them.
VOCABULARY_WORDS = frozenset(w.value for enum in VOCABULARIES for w in enum) - BORROWED
ENUM_NAMES = frozenset(enum.__name__ for enum in VOCABULARIES)


def _named_words(nodes: list[ast.stmt] | ast.expr) -> set[str]:
    """The contract's words ``nodes`` name: strings, or members (``Fate.FETCHED``)."""
    found = set()
    for node in nodes if isinstance(nodes, list) else [nodes]:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Constant) and inner.value in VOCABULARY_WORDS:
                found.add(str(inner.value))
            elif (
                isinstance(inner, ast.Attribute)
                and isinstance(inner.value, ast.Name)
                and inner.value.id in ENUM_NAMES
            ):
                found.add(f"{inner.value.id}.{inner.attr}")
    return found


def _is_enum(node: ast.ClassDef) -> bool:
    return any("Enum" in ast.unparse(base) or ast.unparse(base) == "Word" for base in node.bases)


def vocabulary_tables(source: str) -> list[str]:
    """Every enum of the contract's words and every table (a module's or a class's
    assignment) that lists two or more of them in ``source`` (line: what)."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and _is_enum(node):
            members = [one.value for one in node.body if isinstance(one, ast.Assign)]
            words = sorted(_named_words([ast.Expr(value) for value in members]))
            if len(words) > 1:
                found.append(f"{node.lineno}: an enum {node.name} of {words}")
            continue
        body = node.body if isinstance(node, ast.ClassDef) else [node]
        for statement in body:
            if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value:
                words = sorted(_named_words(statement.value))
                if len(words) > 1:
                    found.append(f"{statement.lineno}: a table of {words}")
    return found


def test_no_module_but_the_contract_keeps_a_table_of_its_words() -> None:
    """A fate, a reason, a status or what refused is one member of the contract, and each
    table of them one of its rows (or derived from them): a second table of the same words
    drifts from the first (the renderers' phrases are the rows' columns)."""
    found = {
        str(path.relative_to(ROOT)): tables
        for package in PACKAGES
        for path in sorted(package.rglob("*.py"))
        if path != CONTRACT and (tables := vocabulary_tables(path.read_text(encoding="utf-8")))
    }
    assert found == {}


@pytest.mark.parametrize(
    "source",
    [
        'SENT = frozenset({"fetched", "redirected", "failed"})',
        "_NOT_HAD = frozenset({Reason.ROBOTSTXT_UNREACHABLE, Reason.TDMREP_UNREACHABLE})",
        '_COUNTS: Final = ("kept", "refused", "unknown", "by_usage")',
        "STORED: Final = (FileFate.STORED, FileFate.MARKED)",
        '_STORY = {Fate.FETCHED: "was fetched", Fate.REFUSED: "was refused"}',
        "DETAIL = {(Action.FETCH, Reason.FORBIDDEN): (), (Action.KEEP, Reason.NOINDEX): ()}",
        'class Row:\n    CLASSES = {"kept": "fetched", "refused": "refused"}',
        'class Status(str, enum.Enum):\n    KEPT = "kept"\n    REFUSED = "refused"',
        'class By(Word):\n    CLOSED = "closed"\n    PAGE = "page"',
        "LISTED = (RefusedBy.PURPOSE, Reason.NOINDEX)",
    ],
)
def test_the_check_finds_a_table_of_the_contracts_words(source: str) -> None:
    assert vocabulary_tables(source)


def test_the_check_lets_derivations_and_other_vocabularies_be() -> None:
    source = (
        'FLAGS = ("noindex", "nofollow", "noarchive")\n'  # the page directives
        'class Where(Word):\n    ROBOTS_TXT = "robots.txt"\n    TDMREP_JSON = "tdmrep.json"\n'
        "SENT = frozenset(fate for fate, row in FATE_ROWS.items() if row.sent)\n"
        '_COUNTS = (*ITEM_STATUSES, "by_usage", "by_access")\n'
        "_DOWNLOADED: Final = FATE_PHRASES[Fate.FETCHED]\n"
        "def colour(status):\n    return {'kept': 'fetched', 'refused': 'refused'}[status]\n"
    )
    assert vocabulary_tables(source) == []


def test_the_contract_holds_the_words_the_check_looks_for() -> None:
    """The control case on the real module: the contract's own enums and tables are
    what the check finds elsewhere."""
    found = vocabulary_tables(CONTRACT.read_text(encoding="utf-8"))
    enums = {line.split()[3] for line in found if " an enum " in line}
    assert enums == ENUM_NAMES - {"Dropped"}  # one word: no table
    assert any("a table of ['Fate.FAILED', 'Fate.FETCHED'" in line for line in found)


#: The words no comparison outside the contract holds as a string: a fate, a file's fate,
#: a status, what refused, a reason, a snapshot's outcome; but the directives' words (a
#: page's ``noindex``, ``unavailable_after``: SPEC §6's, which some reasons borrow) and
#: ``page`` (a record's field, a snapshot's kind; what refused an item, as the member).
CONTRACT_WORDS = frozenset(
    word.value
    for enum in (Fate, FileFate, ItemStatus, RefusedBy, Reason, SnapshotOutcome)
    for word in enum
    if word.value not in (*FLAGS, *KEYED, "page")
)


def word_comparisons(source: str) -> list[str]:
    """Every comparison in ``source`` (``==``, ``!=``, ``in``, ``not in``) of a value with a
    string literal that is a contract word (:data:`CONTRACT_WORDS`), as its source text.
    Not one whose literals are not all contract words (``kind in ("page", "item")``,
    ``k not in ("url", "fetched")``: line types, field names), nor one that asks whether a
    literal is in something (``"page" in record``: a field's name)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        literals = [s for side in (node.left, *node.comparators) for s in _strings(side)]
        named_key = isinstance(node.ops[0], ast.In | ast.NotIn) and _strings(node.left)
        if literals and set(literals) <= CONTRACT_WORDS and not named_key:
            found.append(ast.unparse(node))
    return found


#: The comparisons of contract words still written outside the contract, by module:
#: each part's helper turns them into members and takes them off this list; a new one
#: fails the test, and so does one fixed and still listed.
NOT_YET_MEMBERS: dict[str, list[str]] = {}


def test_no_module_compares_a_contract_word_as_a_string() -> None:
    """A fate, a status, what refused, a reason or a snapshot's outcome is compared as its
    member (``fate is Fate.REFUSED``, ``SnapshotOutcome.of(word) is SnapshotOutcome.ABSENT``),
    never as the word (``fate == "refused"``), outside the contract: the words are said
    once, in ``rep-engine/rep_engine/records.py``."""
    found = {
        str(path.relative_to(ROOT)): sorted(matches)
        for package in PACKAGES
        for path in sorted(package.rglob("*.py"))
        if path != CONTRACT and (matches := word_comparisons(path.read_text(encoding="utf-8")))
    }
    assert found == {module: sorted(said) for module, said in NOT_YET_MEMBERS.items()}


@pytest.mark.parametrize(
    "source",
    [
        'if fate == "refused": pass',
        'if record.get("fate") != "fetched": pass',
        'if status in ("kept", "unknown"): pass',
        'if outcome == "gave-up": pass',
        'if kind == "robots.txt": pass',
        "if entry.refused_by not in ['closed', 'purpose']: pass",
        'if "fetched" == fate: pass',
    ],
)
def test_the_check_sees_a_contract_word_compared_as_a_string(source: str) -> None:
    assert word_comparisons(source)


def test_the_check_lets_members_field_names_and_other_words_be() -> None:
    source = (
        "if fate is Fate.REFUSED: pass\n"
        'if SnapshotOutcome.of(meta.get("outcome")) is SnapshotOutcome.ABSENT: pass\n'
        'if "page" in record: pass\n'  # a field's name
        'if "fetched" not in record: pass\n'
        'if kind in ("page", "item"): pass\n'  # line types
        'if key not in ("url", "fetched"): pass\n'  # field names
        'if name == "unavailable_after": pass\n'  # a directive
        'if reason != "finished": pass\n'  # Scrapy's close reason
        'if kind == "page": pass\n'
    )
    assert word_comparisons(source) == []
