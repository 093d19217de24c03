"""The trail's Merkle tree (RFC 9162 §2.1): the roots, inclusion and consistency proofs of
Certificate Transparency's reference test data (the eight leaves its implementations test
with), a tree of any size against the RFC's recursive definition, and every proof of a
small tree verified, and refused once any of its parts is changed (the tree's size is the
signed head's: a proof alone does not pin it, RFC 9162 §2.1.3.2); a frontier made again from
the roots a tree head keeps of it."""

from __future__ import annotations

import hashlib

import pytest

from rep_engine.trail.merkle import (
    EMPTY_ROOT,
    Frontier,
    MerkleTree,
    leaf_hash,
    node_hash,
    verify_consistency,
    verify_inclusion,
)

#: The leaves of Certificate Transparency's reference tests, and the root after each.
LEAVES = [bytes.fromhex(h) for h in (
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
)]  # fmt: skip
ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
#: The reference consistency proofs in the tree of eight leaves (from its first m).
CONSISTENCY = {
    1: ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
    6: ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"],
    2: ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
}  # fmt: skip


def mth(leaves: list[bytes]) -> bytes:
    """RFC 9162 §2.1.1's definition, recursively, as the reference for any size."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + mth(leaves[:k]) + mth(leaves[k:])).digest()


@pytest.mark.parametrize("size", range(1, 9))
def test_rfc9162_roots_of_the_reference_leaves(size: int) -> None:
    hashes = [leaf_hash(leaf) for leaf in LEAVES[:size]]
    frontier = Frontier()
    for leaf in hashes:
        frontier.add(leaf)
    assert MerkleTree(hashes).root().hex() == ROOTS[size - 1]
    assert frontier.root().hex() == ROOTS[size - 1]
    assert frontier.size == size


def test_rfc9162_the_empty_tree() -> None:
    assert MerkleTree([]).root() == EMPTY_ROOT == Frontier().root() == mth([])


def test_rfc9162_inclusion_proof_of_the_first_reference_leaf() -> None:
    tree = MerkleTree(leaf_hash(leaf) for leaf in LEAVES)
    assert [node.hex() for node in tree.inclusion_proof(0)] == CONSISTENCY[1]


@pytest.mark.parametrize("old", sorted(CONSISTENCY))
def test_rfc9162_reference_consistency_proofs(old: int) -> None:
    tree = MerkleTree(leaf_hash(leaf) for leaf in LEAVES)
    proof = tree.consistency_proof(old)
    assert [node.hex() for node in proof] == CONSISTENCY[old]
    assert verify_consistency(old, 8, bytes.fromhex(ROOTS[old - 1]), tree.root(), proof)


@pytest.mark.parametrize("size", [*range(1, 40), 63, 64, 65, 100, 1000, 1025])
def test_any_size_agrees_with_the_recursive_definition(size: int) -> None:
    leaves = [b"record %d" % i for i in range(size)]
    frontier = Frontier()
    for leaf in leaves:
        frontier.add(leaf_hash(leaf))
    assert MerkleTree(map(leaf_hash, leaves)).root() == mth(leaves) == frontier.root()


def test_every_inclusion_proof_verifies_and_a_changed_part_does_not() -> None:
    for size in range(1, 34):
        hashes = [leaf_hash(b"%d" % i) for i in range(size)]
        tree = MerkleTree(hashes)
        root = tree.root()
        for index, leaf in enumerate(hashes):
            proof = tree.inclusion_proof(index)
            assert verify_inclusion(leaf, index, size, proof, root)
            assert not verify_inclusion(leaf_hash(b"forged"), index, size, proof, root)
            assert not verify_inclusion(leaf, index, size, proof, leaf_hash(b"another root"))
            if size > 1:
                assert not verify_inclusion(leaf, (index + 1) % size, size, proof, root)
                assert not verify_inclusion(leaf, index, size, proof[:-1], root)
                assert not verify_inclusion(leaf, index, size, [*proof, leaf], root)
                altered = [node_hash(proof[0], proof[0]), *proof[1:]]
                assert not verify_inclusion(leaf, index, size, altered, root)
        with pytest.raises(IndexError):
            tree.inclusion_proof(size)


def test_every_consistency_proof_verifies_and_a_shrunk_or_rewritten_log_does_not() -> None:
    for new in range(1, 34):
        hashes = [leaf_hash(b"%d" % i) for i in range(new)]
        tree = MerkleTree(hashes)
        for old in range(1, new + 1):
            old_root = MerkleTree(hashes[:old]).root()
            proof = tree.consistency_proof(old)
            assert verify_consistency(old, new, old_root, tree.root(), proof)
            rewritten = MerkleTree([leaf_hash(b"x"), *hashes[1:old]]).root()
            assert not verify_consistency(old, new, rewritten, tree.root(), proof)
            if old < new:  # the older head and the newer swapped: a log that shrank
                assert not verify_consistency(old, new, tree.root(), old_root, proof)
                assert not verify_consistency(new, old, tree.root(), old_root, proof)
        with pytest.raises(ValueError):
            tree.consistency_proof(new + 1)


def test_a_frontier_resumed_gives_the_roots_of_every_size() -> None:
    for size in range(40):
        frontier = Frontier()
        for n in range(size):
            frontier.add(leaf_hash(b"%d" % n))
        again = Frontier.resumed(size, frontier.roots())
        assert again is not None and again.root() == frontier.root()
    assert Frontier.resumed(3, [leaf_hash(b"x")]) is None  # two subtrees, one root
    assert Frontier.resumed(1, [b"short"]) is None
