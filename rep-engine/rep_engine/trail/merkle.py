"""The Merkle tree of a trail's records, as Certificate Transparency hashes a log (RFC 9162
§2.1, SHA-256), pure: the root over the records in their order, an inclusion proof of one
record (§2.1.3) and a consistency proof between two sizes of the same trail (§2.1.4), and
their verification, which needs the proof, the record and the root, never the trail.

A leaf is one record's line as the trail's file holds it (its bytes, ``prev`` included,
without the line feed): RFC 9162 §2.1.1's ``HASH(0x00 || d)``, and a node ``HASH(0x01 ||
left || right)``. The tree of ``n`` leaves splits at ``k``, the largest power of two
smaller than ``n``; built level by level from the leaves, a last node without a sibling
is carried up unchanged, which gives the same tree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

#: RFC 9162 §2.1.1: the hash of an empty tree.
EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """RFC 9162 §2.1.1: ``HASH(0x00 || d)``."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162 §2.1.1: ``HASH(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


class Frontier:
    """The root of a growing tree from one leaf hash at a time, holding only the roots of
    its largest perfect subtrees (at most one per bit of its size): what a trail's writer
    keeps to say its tree head at the end of each run."""

    def __init__(self) -> None:
        #: The roots of the perfect subtrees, largest (leftmost) first, with their sizes.
        self._subtrees: list[tuple[int, bytes]] = []
        self.size = 0

    def add(self, leaf: bytes) -> None:
        """Append one leaf hash (:func:`leaf_hash`)."""
        size, root = 1, leaf
        while self._subtrees and self._subtrees[-1][0] == size:
            left = self._subtrees.pop()[1]
            size, root = size * 2, node_hash(left, root)
        self._subtrees.append((size, root))
        self.size += 1

    def root(self) -> bytes:
        """The root over every leaf added (:data:`EMPTY_ROOT`: none): the subtrees joined
        from the right, as §2.1.1's split at the largest power of two joins them."""
        if not self._subtrees:
            return EMPTY_ROOT
        root = self._subtrees[-1][1]
        for _, left in reversed(self._subtrees[:-1]):
            root = node_hash(left, root)
        return root


class MerkleTree:
    """Every level of the tree over ``leaves`` (leaf hashes), for proofs: 32 bytes a node,
    about twice the leaves' (a million records: 64 MB), never the records themselves."""

    def __init__(self, leaves: Iterable[bytes]) -> None:
        self.levels: list[list[bytes]] = [list(leaves)]
        while len(self.levels[-1]) > 1:
            below = self.levels[-1]
            above = [node_hash(below[i], below[i + 1]) for i in range(0, len(below) - 1, 2)]
            if len(below) % 2:
                above.append(below[-1])  # no sibling: carried up unchanged
            self.levels.append(above)

    @property
    def size(self) -> int:
        return len(self.levels[0])

    def root(self) -> bytes:
        return self.levels[-1][0] if self.size else EMPTY_ROOT

    def inclusion_proof(self, index: int) -> list[bytes]:
        """RFC 9162 §2.1.3.1's ``PATH(m, D[n])`` of the leaf at ``index``: the sibling at
        each level, from the leaf up (a level where it has none adds nothing)."""
        if not 0 <= index < self.size:
            raise IndexError(f"no leaf {index} in a tree of {self.size}")
        path = []
        for level in self.levels[:-1]:
            sibling = index ^ 1
            if sibling < len(level):
                path.append(level[sibling])
            index //= 2
        return path

    def subtree_root(self, start: int, end: int) -> bytes:
        """``MTH(D[start:end])`` of §2.1.1, for the ranges a consistency proof names."""
        width = end - start
        if width & (width - 1) == 0 and start % width == 0:  # a perfect subtree: a node
            return self.levels[width.bit_length() - 1][start // width]
        split = 1 << ((width - 1).bit_length() - 1)
        return node_hash(
            self.subtree_root(start, start + split), self.subtree_root(start + split, end)
        )

    def consistency_proof(self, old_size: int) -> list[bytes]:
        """RFC 9162 §2.1.4.1's ``PROOF(m, D[n])``: that the tree of ``old_size`` leaves is
        the start of this one."""
        if not 0 < old_size <= self.size:
            raise ValueError(f"no consistency proof from {old_size} leaves to {self.size}")
        return self._subproof(old_size, 0, self.size, True)

    def _subproof(self, m: int, start: int, end: int, whole: bool) -> list[bytes]:
        """§2.1.4.1's ``SUBPROOF(m, D[start:end], b)``."""
        n = end - start
        if m == n:
            return [] if whole else [self.subtree_root(start, end)]
        k = 1 << ((n - 1).bit_length() - 1)
        if m <= k:
            return [*self._subproof(m, start, start + k, whole), self.subtree_root(start + k, end)]
        return [*self._subproof(m - k, start + k, end, False), self.subtree_root(start, start + k)]


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> bool:
    """RFC 9162 §2.1.3.2: whether ``proof`` proves the leaf hash ``leaf`` at ``index`` in
    the tree of ``size`` leaves whose root is ``root``."""
    if not 0 <= index < size:
        return False
    fn, sn, result = index, size - 1, leaf
    for sibling in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            result = node_hash(sibling, result)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            result = node_hash(result, sibling)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and result == root


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """RFC 9162 §2.1.4.2: whether ``proof`` proves that the tree of ``old_size`` leaves
    (root ``old_root``) is the start of the tree of ``new_size`` (root ``new_root``): the
    log only grew."""
    if not 0 < old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: its root is a node of the path
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    first = second = path[0]
    for node in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            first, second = node_hash(node, first), node_hash(node, second)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            second = node_hash(second, node)
        fn, sn = fn >> 1, sn >> 1
    return first == old_root and second == new_root and sn == 0
