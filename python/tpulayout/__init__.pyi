"""Type hints of the tpulayout package."""

from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple, TypedDict, Union

import os

import numpy as np
import numpy.typing as npt

# Anything with the buffer protocol: bytes, bytearray, memoryview, mmap, a NumPy array.
Buffer = Any
# A shape and layout: text such as "bf16[8,128]{1,0:T(8,128)(2,1)}", or a Shape.
LayoutLike = Union[str, "Shape"]
DTypeLike = Union[str, npt.DTypeLike]
Pad = Union[float, int, str, None]

class TpulayoutError(Exception): ...

class LayoutError(TpulayoutError, ValueError):
    position: int
    text: str
    def __init__(self, message: str, position: int = ..., text: str = ...) -> None: ...

class ShapeError(TpulayoutError, ValueError): ...
class SizeError(TpulayoutError, ValueError): ...
class BufferArgumentError(TpulayoutError, ValueError): ...
class InputError(TpulayoutError, ValueError): ...
class InternalError(TpulayoutError, RuntimeError): ...

class LayoutMismatch(TpulayoutError, AssertionError):
    report: "Report"
    def __init__(self, message: str, report: "Report") -> None: ...

class Shape:
    text: str
    dtype: str
    dims: Tuple[int, ...]
    minor_to_major: Tuple[int, ...]
    tiles: Tuple[Tuple[Union[int, str], ...], ...]
    element_bits: int
    footprint_bytes: int

class Info:
    shape: str
    dtype: str
    dims: Tuple[int, ...]
    minor_to_major: Tuple[int, ...]
    tiles: Tuple[Tuple[Union[int, str], ...], ...]
    tail_padding: int
    levels: Tuple[Tuple[str, Tuple[int, ...]], ...]
    element_bits: int
    logical_elements: int
    logical_bytes: int
    footprint_elements: int
    footprint_bytes: int
    padding_elements: int
    padding_fraction: float
    tile_count: int
    tpu: Optional[dict]
    physical_order: Tuple[int, ...]
    expansion: float
    generation: str
    default_layout: Optional[dict]
    cheapest: Tuple[dict, ...]
    no_tpu_layout: str
    host_row_blocks: Optional[dict]
    xla_array_size_bytes: int

class SparseInfo:
    shape: str
    dtype: str
    dims: Tuple[int, ...]
    minor_to_major: Tuple[int, ...]
    physical_order: Tuple[int, ...]
    dim_level_types: Tuple[str, ...]
    index_type: str
    pointer_type: str
    physical_shape: str
    memory_space: int
    logical_elements: int
    meaning: str
    footprint: str
    sparse: bool

# The reports of explain, hlo and blockspec are the dicts `tpulayout VERB --json` prints
# (schemas: docs/schema/VERB.json in the repository; Go: package report). Keys that are
# only present sometimes are in the *Optional bases.

class _ExplainLevel(TypedDict):
    tile: List[Union[int, str]]
    tile_index: List[int]
    tile_counts: List[int]
    within_tile: List[int]

class _ExplanationOptional(TypedDict, total=False):
    index: List[int]  # absent for padding
    tail_padding: bool  # padding from L(n), past the expanded shape
    physical_index: List[int]
    expanded_index: List[int]
    reason: str  # for padding: which tile pads what

class Explanation(_ExplanationOptional):
    shape: str
    padding: bool
    offset: int  # in elements
    byte_offset: int
    bit_offset: int
    bit_in_byte: int
    element_bits: int
    expanded_dims: List[int]
    levels: List[_ExplainLevel]

# Functional syntax: "from" is a Python keyword.
_HLORowOptional = TypedDict("_HLORowOptional", {
    "number": int,  # parameter or result number
    "index": str,  # shape index within a tuple, "{1}"
    "opcode": str,
    "line": int,
    "retiled": bool,  # the layout is the generation's default (hlo(to=...)), not the dump's
    "from": str,  # "header" (entry_computation_layout) or "body"
    "body_shape": str,  # the body's shape where it differs from the header's
    "inferred": bool,
    "shape_not_written": bool,
    "note": str,
}, total=False)

class HLORow(_HLORowOptional):
    kind: str  # parameter, result or instruction
    name: str
    shape: str
    layout: str
    logical_bytes: int
    footprint_bytes: int
    expansion: float
    sized: bool

class _HLOReportOptional(TypedDict, total=False):
    unknown_opcodes: List[str]
    header_note: str

class HLOReport(_HLOReportOptional):
    module: str
    entry: str
    entry_marked: bool
    rows: List[HLORow]
    total_logical_bytes: int
    total_footprint_bytes: int
    total_expansion: float

class _Pipeline(TypedDict):
    operands: int
    bytes: int
    vmem_fraction: float
    fits: bool

class _BlockReportOptional(TypedDict, total=False):
    problems: List[str]  # when not legal
    partial_dims: List[int]
    nearest: List[List[int]]

class BlockReport(_BlockReportOptional):
    array: List[int]
    block: List[int]
    legal: bool
    native_tile: List[int]
    native_aligned: bool
    block_bytes: int
    grid: List[int]
    steps: int
    vmem_bytes: int
    generation: str
    dtype: str
    block_layout: str
    double_buffered: List[_Pipeline]

class Plan:
    src: str
    dst: str
    src_bytes: int
    dst_bytes: int
    kernel: str
    description: str
    def __init__(self, src_layout: LayoutLike, dst_layout: LayoutLike, *, pad: Pad = ...,
                 workers: Optional[int] = ...) -> None: ...
    def copy(self, src: Buffer, out: Optional[Buffer] = ...) -> Any: ...
    def __call__(self, src: Buffer, out: Optional[Buffer] = ...) -> Any: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Plan": ...
    def __exit__(self, *exc: Any) -> None: ...

class Report:
    json: dict
    text: str
    summary: str
    @property
    def ok(self) -> bool: ...
    @property
    def mismatches(self) -> int: ...
    @property
    def first(self) -> list: ...
    @property
    def diagnosis(self) -> Optional[dict]: ...
    def __getattr__(self, name: str) -> Any: ...
    def __bool__(self) -> bool: ...

def to_device(array: npt.ArrayLike, layout: LayoutLike, *, dtype: Optional[DTypeLike] = ...,
              pad: Pad = ..., workers: Optional[int] = ...,
              out: Optional[Buffer] = ...) -> Any: ...
def from_device(buffer: Buffer, layout: LayoutLike, *, dtype: Optional[DTypeLike] = ...,
                out: Optional[np.ndarray] = ..., workers: Optional[int] = ...) -> np.ndarray: ...
def relayout(src: Buffer, src_layout: LayoutLike, dst_layout: LayoutLike, *,
             out: Optional[Buffer] = ..., pad: Pad = ..., workers: Optional[int] = ...) -> Any: ...
def validate(dump: Buffer, layout: LayoutLike, ref: Any, *, ref_layout: Optional[LayoutLike] = ...,
             ulp: int = ..., abs: float = ..., rel: float = ..., check_padding: bool = ...,
             gen: Optional[str] = ..., max_listed: int = ...) -> Report: ...
def check(dump: Buffer, layout: LayoutLike, ref: Any, **kwargs: Any) -> Report: ...
def empty(shape: Union[int, Sequence[int]], dtype: DTypeLike = ...) -> np.ndarray: ...
def parse(layout: LayoutLike) -> Shape: ...
def info(layout: LayoutLike, gen: Optional[str] = ...) -> Union[Info, SparseInfo]: ...
def default_layout(shape: Sequence[int], dtype: DTypeLike, gen: Optional[str] = ...) -> str: ...
def explain(layout: LayoutLike, index: Union[Sequence[int], str, None] = ..., *,
            offset: Optional[int] = ...) -> Explanation:
    """Where the element at a logical index lives, or (offset=N) what lives at element
    offset N: `tpulayout explain --json`."""
def hlo(path_or_text: Union[str, "os.PathLike[str]", bytes], all: bool = ..., *,
        to: Optional[str] = ..., sort: str = ...) -> HLOReport:
    """The entry parameters and results (all=True: every instruction) of an HLO module
    file or text, with sizes and padding: `tpulayout hlo --json`."""
def blockspec(array: LayoutLike, block: Sequence[int], *, gen: Optional[str] = ...,
              operands: int = ...) -> BlockReport:
    """Legality, VMEM and grid of a Pallas TPU block shape: `tpulayout blockspec --json`
    (an illegal block is reported with legal False, not raised)."""
# The layout algebra's reports (Go: package report; docs/algebra.md).
# tpulayout cute --json (Go: report.Cute).
class CuteLevel(TypedDict):
    name: str
    layout: str

class _CuteBase(TypedDict):
    shape: str
    element_bits: int
    alloc: int                     # elements
    alloc_bytes: int
    padding: int                   # allocated elements that hold no element
    chain: Optional[List[CuteLevel]]  # the levels; None when one layout holds the map

class CuteReport(_CuteBase, total=False):
    one: str                       # shape:stride, absent for a chain
    coalesced: str
    reason: str                    # why no single layout exists
    size: int
    cosize: int
    extents: List[int]             # the padded domain of one
    complement: str                # where the padding sits
    words: str                     # words=True: the 32-bit word view

# tpulayout whereis --json (Go: report.WhereIs).
class _WhereIsElementBase(TypedDict):
    element: int
    padding: bool

class WhereIsElement(_WhereIsElementBase, total=False):
    index: List[int]               # absent for padding

class _WhereIsBase(TypedDict):
    shape: str
    element_bits: int
    elements: List[WhereIsElement]  # several for a byte of a sub-byte type

class WhereIsReport(_WhereIsBase, total=False):
    byte: int                      # with byte=N

# tpulayout equal --json (Go: report.Equal).
class _EqualBase(TypedDict):
    a: str
    b: str
    equal: bool
    same_map: bool
    alloc_a: int
    alloc_b: int

class EqualReport(_EqualBase, total=False):
    index: List[int]               # the first element whose offsets differ
    offset_a: int
    offset_b: int

# tpulayout copymap --json (Go: report.CopyMap).
# "class" is a Python keyword: the functional form.
CopyMapReport = TypedDict("CopyMapReport", {
    "src": str,
    "dst": str,
    "copy_map": str,               # shape:stride, or "none: why"
    "vector": int,                 # the longest common contiguous run, in elements
    "vector_bytes": int,
    "bitcast": bool,
    "class": str,                  # bitcast, memcpy, strided runs of N elements, element shuffle
})

# tpulayout blocks --json (Go: report.Blocks).
class _BlocksBase(TypedDict):
    shape: str
    block: List[int]

class BlocksReport(_BlocksBase, total=False):
    blocks: int
    runs: int                      # per block
    run_elements: int
    run_bytes: int
    misaligned: str                # the block dim that cuts a tile (then no counts)

# tpulayout padding --json (Go: report.Padding).
class _PaddingBase(TypedDict):
    shape: str
    alloc: int
    padding: int
    fraction: float

class PaddingReport(_PaddingBase, total=False):
    extents: List[int]
    complement: str

def cute(shape: LayoutLike, words: bool = ...) -> CuteReport:
    """The layout as a CuTe layout (or the chain of levels and why), size, cosize,
    extents, allocation, padding: `tpulayout cute --json`."""
def whereis(shape: LayoutLike, byte: Optional[int] = ..., element: Optional[int] = ...) -> WhereIsReport:
    """The logical index at byte N or element offset N (one of them), or padding:
    `tpulayout whereis --json`."""
def equal(a: LayoutLike, b: LayoutLike) -> EqualReport:
    """Whether two layouts of one shape are the same bytes: `tpulayout equal --json`."""
def copymap(src: LayoutLike, dst: LayoutLike) -> CopyMapReport:
    """The copy map from src to dst offsets, its vector and class: `tpulayout copymap --json`."""
def blocks(shape: LayoutLike, block: Sequence[int]) -> BlocksReport:
    """How a block shape cuts the layout into runs: `tpulayout blocks --json`."""
def padding(shape: LayoutLike) -> PaddingReport:
    """How much of the allocation is padding, and where: `tpulayout padding --json`."""

class _Problem(TypedDict, total=False):
    tensor: str
    file: str
    msg: str

PathLike = Union[str, "os.PathLike[str]"]

# A sharded conversion's manifest.json (Go: sharding.Manifest; docs/schema/manifest.json).
class ManifestShard(TypedDict):
    index: List[int]               # the shard's position along each dim
    ranges: List[List[int]]        # [start, end) of the global array along each dim
    devices: Union[List[int], str]  # ids; a long run-length list is text, "0-1048575"
    file: str                      # the image, relative to OUTDIR
    bytes: int
    sha256: str

class ManifestTensor(TypedDict):
    name: str
    dtype: str                     # the source's
    shape: List[int]               # global
    source_file: str
    spec: str                      # PartitionSpec, P(...)
    shard_shape: List[int]
    layout: str                    # each shard image's device layout
    shards: List[ManifestShard]

class ManifestDevice(TypedDict):
    id: int
    coords: List[int]              # in the mesh
    files: List[str]               # one image per tensor, in the order of tensors

class ManifestMesh(TypedDict):
    axes: List[str]
    sizes: List[int]
    devices: Union[List[int], str]  # row-major order of the axes

class _ManifestSource(TypedDict):
    file: str
    bytes: int
    fingerprint: str

class _ManifestBase(TypedDict):
    format: str                    # "tpulayout-sharded-1"
    source: str                    # the checkpoint as named
    to: str                        # the target as given
    checksum: str                  # "sha256"
    mesh: ManifestMesh
    tensors: List[ManifestTensor]

class Manifest(_ManifestBase, total=False):
    sources: List[_ManifestSource]  # the checkpoint's files as read
    process: str                   # "I/N" in a process's partial manifest
    devices: List[ManifestDevice]  # left out of the file over 64 devices

class TensorSummary(TypedDict):
    name: str
    spec: str
    layout: str
    shards: int                    # distinct shard images

class GuessedLayout(TypedDict):
    tensor: str
    layout: str                    # the tpu:GEN default the images take
    why: str                       # why the XLA dumps do not back it

# tpulayout convert --mesh ... --json (Go: sharding.ConvertSummary; docs/schema/shard.json).
class ShardSummary(TypedDict):
    manifest_path: str             # OUTDIR/manifest.json, or this process's partial manifest
    bytes: int                     # of this process's images
    tensors: List[TensorSummary]
    guessed: List[GuessedLayout]   # to="tpu:GEN" defaults that are guesses (the CLI's note)
    manifest: Manifest

# tpulayout place --json (Go: sharding.PlacementReport; docs/schema/place.json).
class PlacedShard(TypedDict):
    index: List[int]               # the shard's position along each dim
    ranges: List[List[int]]        # [start, end) of the global array along each dim
    devices: Union[List[int], str]  # ids, increasing; a long run-length list is text, "0-255"

class _PlacementBase(TypedDict):
    dtype: str
    shape: List[int]               # global
    spec: str                      # PartitionSpec, P(...)
    mesh: ManifestMesh
    shard_shape: List[int]
    shards: List[PlacedShard]      # one per distinct shard, its replicas together

class Placement(_PlacementBase, total=False):
    name: str                      # the tensor's, when given

class VerifyReport(TypedDict):
    manifest: Manifest
    tensors: int
    shards: int
    bytes: int
    problems: List[_Problem]  # empty when the conversion checks out

def shard(checkpoint: PathLike, out_dir: PathLike, *, mesh: str, spec: Optional[str] = ...,
          rules: Union[PathLike, Dict[str, Any], Sequence[Any], None] = ..., to: str, dtype: Optional[str] = ...,
          devices: Union[Sequence[int], str, None] = ..., process: Optional[Tuple[int, int]] = ...,
          tensor: Optional[str] = ..., pad: Pad = ..., checksum: Optional[str] = ...) -> ShardSummary:
    """Converts a safetensors checkpoint (a file or an index .json; a path or an s3://,
    gs:// URL) into per-device images of the mesh in out_dir (a new or empty directory,
    or a bucket prefix): `tpulayout convert CKPT OUT_DIR --mesh ... --all --json`. One of
    spec (every tensor) or rules (a rules file, its object as a dict, or a list of
    {"match", "spec"} dicts or (match, spec) pairs); to is tpu:GEN, a layout alone {...},
    a dtype, a shape or hlo:MODULE.txt:param=N; dtype applies to floating-point tensors; devices are the ids in
    row-major mesh order; process=(i, n) writes process i of n's devices and its
    partial manifest (join with merge); tensor converts one tensor only; checksum is
    the images' checksum, "crc32c" (the default) or "sha256" (--checksum). Bad input
    raises InputError with the CLI's message."""
def place(shape: Union[str, Shape], *, mesh: str, spec: Optional[str] = ...,
          rules: Union[PathLike, Dict[str, Any], Sequence[Any], None] = ..., tensor: Optional[str] = ...,
          devices: Union[Sequence[int], str, None] = ...) -> Placement:
    """Where each piece of an array of shape (an XLA shape; its layout does not matter)
    goes on the mesh under spec, or the rule of rules matching tensor, without reading or
    writing data: `tpulayout place SHAPE --json`. A dim its mesh axes do not divide
    raises InputError with the conversion's message, as jax.device_put refuses it."""
def merge(out_dir: PathLike, *, quick: bool = ...) -> Manifest:
    """Joins the processes' partial manifests in out_dir into manifest.json after
    checking them and the files: `tpulayout manifest merge --json`."""
def manifest(out_dir: PathLike) -> Manifest:
    """The manifest of the finished conversion in out_dir (a directory or a bucket
    prefix), with the per-device table even where the file leaves it out."""

class Sharded:
    """A finished sharded conversion opened for reading (a directory, or a bucket
    prefix whose images are read by ranges as they are asked for); images are checked
    against their size and, with check=True, the checksum the manifest names (crc32c
    or sha256, computed by the Go library), and read with from_device."""
    path: str                      # out_dir as given
    dir: str                       # the directory of the images; "" for a bucket
    manifest: Manifest
    check: bool
    def __init__(self, out_dir: PathLike, *, check: bool = ...) -> None: ...
    @property
    def devices(self) -> List[int]:
        """The device ids in row-major order of the mesh."""
    @property
    def tensors(self) -> List[str]:
        """The tensors' names in the manifest's order."""
    def shard(self, tensor: str, device: int) -> np.ndarray:
        """The shard of tensor that device holds (its shard_shape, the images' dtype)."""
    def device_arrays(self, device: int) -> dict:
        """Every tensor's shard on device: {name: array}."""
    def array(self, tensor: str) -> np.ndarray:
        """The global array of tensor, assembled from its shards: what gather writes."""
    def close(self) -> None:
        """Nothing to release (kept for code written when a bucket was copied)."""
    def __enter__(self) -> "Sharded": ...
    def __exit__(self, *exc: Any) -> None: ...

def verify(outdir: PathLike, source: Optional[PathLike] = ...) -> VerifyReport:
    """Checks a sharded conversion (a directory or a bucket prefix) against its manifest
    and source: `tpulayout verify --json`."""
def gather(outdir: PathLike, out: PathLike) -> Manifest:
    """Reassembles a sharded conversion's global arrays into out (.safetensors), as
    `tpulayout gather --json`; returns the manifest."""
