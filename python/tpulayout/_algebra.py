"""The layout algebra's reports (Go: package report over layout/algebra): the dicts
`tpulayout cute`, `whereis`, `equal`, `copymap`, `blocks` and `padding` print with
--json. Shapes are XLA shape text (any form the CLI takes) or a Shape."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ._reports import _ints, _report


def cute(shape: Any, words: bool = False) -> dict:
    """The layout of shape in CuTe's notation, shape:stride (``one``, absent when no
    single layout exists: then ``reason`` and the ``chain`` of levels), coalesced, with
    size, cosize, padded extents, allocation and padding; ``words=True`` adds the view
    in 32-bit words of a packed type. Returns the dict of ``tpulayout cute --json``."""
    return _report(report="cute", layout=str(shape), words=bool(words))


def whereis(shape: Any, byte: Optional[int] = None, element: Optional[int] = None) -> dict:
    """What byte N (``byte=N``) or element offset N (``element=N``) of shape's buffer
    holds: each element there with its logical index, or padding. Returns the dict of
    ``tpulayout whereis --json``."""
    if (byte is None) == (element is None):
        raise TypeError("tpulayout.whereis takes one of byte=N and element=N")
    if byte is not None:
        return _report(report="whereis", layout=str(shape), byte=int(byte))
    return _report(report="whereis", layout=str(shape), element=int(element))


def equal(a: Any, b: Any) -> dict:
    """Whether layouts a and b (the same dims and element width) put every element at
    the same offset (``same_map``) and allocate the same (``equal``), and the first
    element whose offsets differ. A difference is reported, not raised. Returns the
    dict of ``tpulayout equal --json``."""
    return _report(report="equal", a=str(a), b=str(b))


def copymap(src: Any, dst: Any) -> dict:
    """The copy map of a relayout from src to dst (the same dims and element width):
    source offset to destination offset as a CuTe layout, the longest common contiguous
    run (``vector``), and the class (bitcast, memcpy, strided runs, element shuffle).
    Returns the dict of ``tpulayout copymap --json``."""
    return _report(report="copymap", src=str(src), dst=str(dst))


def blocks(shape: Any, block: Sequence[int]) -> dict:
    """How a block (a Pallas block shape or a shard, one entry per dim, each dividing
    its dim) cuts shape's layout: blocks, contiguous runs per block and their length,
    or ``misaligned`` when a block dim cuts a tile (reported, not raised). Returns the
    dict of ``tpulayout blocks --json``."""
    return _report(report="blocks", layout=str(shape), block=_ints(block, "block"))


def padding(shape: Any) -> dict:
    """How many allocated elements of shape are padding, their fraction, the padded
    extents, and the complement layout that reaches them. Returns the dict of
    ``tpulayout padding --json``."""
    return _report(report="padding", layout=str(shape))
