"""The reports of the CLI's inspection verbs (explain, hlo, blockspec), built by the Go
package report and returned as the dicts `tpulayout VERB --json` prints: the same keys,
described by the JSON schemas in the repository's docs/schema; and verify and gather of
a sharded conversion, over the Go package sharding."""

from __future__ import annotations

import json
import os
from typing import Any, Optional, Sequence

from ._errors import InputError
from ._lib import call_string, lib


def _report(**request: Any) -> dict:
    return json.loads(call_string(lib.tl_report, json.dumps(request).encode()))


def _ints(v: Any, what: str) -> list:
    try:
        return [int(x) for x in v]
    except TypeError:
        return [int(v)]  # a bare int: a rank-1 index or block
    except ValueError as e:
        raise InputError(f"tpulayout: {what} {v!r}: {e}") from None


def explain(layout: Any, index: Optional[Sequence[int]] = None, *,
            offset: Optional[int] = None) -> dict:
    """Where the element at a logical ``index`` lives in ``layout`` (its element, byte
    and bit offsets, physical and expanded index, and tile and position in the tile at
    every tile level), or with ``offset=N`` what lives at element offset N: the element
    there, or why it is padding. The index is a sequence of ints, or text as the CLI
    takes it ("2,3", "(2,3)"); a scalar's is ``()`` or ``""``. Returns the dict of
    ``tpulayout explain --json``."""
    if (index is None) == (offset is None):
        raise TypeError("tpulayout.explain takes an index or offset=N (one of them)")
    req: dict = {"report": "explain", "layout": str(layout)}
    if offset is not None:
        req["offset"] = int(offset)
    elif isinstance(index, str):
        text = index.strip().strip("()[]").strip()
        req["index"] = _ints([p.strip() for p in text.split(",")] if text else [], "index")
    else:
        req["index"] = _ints(index, "index")
    return _report(**req)


def hlo(path_or_text: Any, all: bool = False, *, to: Optional[str] = None,
        sort: str = "file") -> dict:
    """The arrays of an HLO module text dump: the entry parameters and results (each
    element of a tuple result), or with ``all=True`` every instruction, with shape,
    layout, logical and footprint bytes and expansion, and the totals. ``path_or_text``
    is a file's path or the module's text (anything with a newline). ``to="v5e"`` gives
    arrays the dump leaves untiled that generation's default layout; ``sort="padding"``
    lists the worst expansion first. Returns the dict of ``tpulayout hlo --json``."""
    source: dict
    if isinstance(path_or_text, bytes):
        source = {"text": path_or_text.decode("utf-8")}
    elif isinstance(path_or_text, os.PathLike) or "\n" not in str(path_or_text):
        path = os.fspath(path_or_text)
        with open(path, "rb"):
            pass  # a missing or unreadable file raises Python's own OSError
        # The library reads it, under the command line's size limit.
        source = {"path": path}
    else:
        source = {"text": str(path_or_text)}
    if to is not None and str(to).startswith("tpu:"):
        to = str(to)[4:]
    return _report(report="hlo", **source, all=bool(all), to=to or "", sort=sort)


def blockspec(array: Any, block: Sequence[int], *, gen: Optional[str] = None,
              operands: int = 3) -> dict:
    """Checks a Pallas TPU block shape for an array such as ``"bf16[4096,4096]"``:
    legality (``legal``, ``problems``), alignment to the dtype's native tile, the VMEM
    of one block and of 1 to ``operands`` double-buffered operands, the grid, and the
    nearest legal (or aligned) blocks. An illegal block is reported, not raised.
    Returns the dict of ``tpulayout blockspec --json``."""
    return _report(report="blockspec", array=str(array), block=_ints(block, "block"),
                   gen=gen or "", operands=int(operands))


def verify(outdir: Any, source: Any = None) -> dict:
    """Checks a sharded conversion (:func:`shard`, ``tpulayout convert … --mesh …``) in
    outdir, a directory or a bucket prefix, as ``tpulayout verify --json`` does: every tensor's placement recomputed from its spec and the
    mesh, each device's files, each file's size and checksum, and each image's contents
    against the source checkpoint (the manifest's, or ``source``). Returns a dict:
    ``tensors``, ``shards``, ``bytes`` checked, ``problems`` (dicts: tensor, file, msg;
    empty when all is well) and the ``manifest``. Raises only when it cannot start,
    with the CLI's message."""
    return _report(report="verify", dir=os.fspath(outdir),
                   source=os.fspath(source) if source is not None else "")


def gather(outdir: Any, out: Any) -> dict:
    """Reassembles the global arrays of the sharded conversion in outdir (a directory or
    a bucket prefix) into the safetensors file ``out`` (row-major, in the images'
    dtype), as ``tpulayout gather --json`` does: each shard's file is checked against its
    size and SHA-256, and the shards must cover every device once. ``out`` is written to a temporary file and renamed, and may
    not be the checkpoint the images came from. Returns the conversion's manifest as a
    dict."""
    return _report(report="gather", dir=os.fspath(outdir), out=os.fspath(out))
