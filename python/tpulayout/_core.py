"""The Python API over libtpulayout: conversions between NumPy arrays and device images,
relayouts between any two layouts, reusable plans, and layout information."""

from __future__ import annotations

import ctypes
import functools
import math
import operator
import json
import threading
import weakref
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional, Sequence, Tuple, Union

import numpy as np

from . import _dtypes
from ._errors import BufferArgumentError, InputError, SizeError
from . import _lib
from ._lib import call_string, check_fork, cstr, lib, raise_error, take_string

# ---------------------------------------------------------------------------------
# Buffers


def _as_array(obj: Any, what: str) -> np.ndarray:
    """A NumPy view of obj's bytes without copying them."""
    if isinstance(obj, np.ndarray):
        return obj
    try:
        return np.frombuffer(obj, dtype=np.uint8)
    except BufferError as e:
        raise BufferArgumentError(f"tpulayout: {what}: {e}") from None
    except (TypeError, ValueError) as e:
        raise BufferArgumentError(
            f"tpulayout: {what} must be a buffer (bytes, bytearray, memoryview, mmap, NumPy "
            f"array), not {type(obj).__name__}: {e}") from None


def _raw(obj: Any, what: str, nbytes: int, writable: bool) -> Tuple[np.ndarray, int]:
    """The array over obj's contiguous bytes and its address, after checking size and
    writability."""
    a = _as_array(obj, what)
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        raise BufferArgumentError(f"tpulayout: {what} is not contiguous (strides {a.strides}); "
                                  "raw device bytes must be one contiguous run")
    if writable and not a.flags.writeable:
        raise BufferArgumentError(f"tpulayout: {what} is read-only")
    if a.nbytes != nbytes:
        raise SizeError(f"tpulayout: {what} has {a.nbytes} bytes, want {nbytes}")
    return a, a.ctypes.data


# An array's data address: a.ctypes.data builds a ctypes object each time (about 1.5 µs,
# most of a small copy's cost from Python), so the addresses of the arrays used last are
# kept. An entry holds a weak reference, so a dead array whose id another takes misses;
# NumPy refuses to resize an array that has weak references (the address stays), and
# assigning .data, the other way to move it, changes .base, which is checked.
_addrs: "dict[int, tuple]" = {}
_ADDRS_MAX = 256


def _address(a: np.ndarray) -> int:
    e = _addrs.get(id(a))
    if e is not None and e[0]() is a and e[1] == id(a.base):
        return e[2]
    addr = a.ctypes.data
    if len(_addrs) >= _ADDRS_MAX:
        _addrs.clear()
    _addrs[id(a)] = (weakref.ref(a), id(a.base), addr)
    return addr


def _writable_address(out: Any, nbytes: int) -> int:
    """The address of out, a writable contiguous buffer of nbytes."""
    if type(out) is np.ndarray:
        f = out.flags
        if (f.c_contiguous or f.f_contiguous) and f.writeable and out.nbytes == nbytes:
            return _address(out)
    return _raw(out, "out", nbytes, True)[1]


def _readable_address(buf: Any, what: str, nbytes: int) -> int:
    """The address of buf, a readable contiguous buffer of nbytes."""
    if type(buf) is np.ndarray:
        f = buf.flags
        if (f.c_contiguous or f.f_contiguous) and buf.nbytes == nbytes:
            return _address(buf)
    return _raw(buf, what, nbytes, False)[1]


ALIGNMENT = 64


def empty(shape: Any, dtype: Any = np.uint8) -> np.ndarray:
    """An uninitialised C-order array whose data starts on a 64-byte boundary (NumPy's
    own large arrays start 16 bytes past one). The Go kernels stream their stores to a
    destination only when they can align it to the vector width, so outputs that
    tpulayout allocates come from here, and ``out=`` buffers are best made here too."""
    # XLA names first, as every other dtype= here: np.dtype("u8") is uint64, "f16" float128.
    dt = _dtypes.numpy_type(dtype) if isinstance(dtype, str) and dtype in _dtypes._BITS else np.dtype(dtype)
    shape = tuple(_dims((shape,) if isinstance(shape, (int, np.integer)) else shape))
    n = math.prod(shape) * dt.itemsize
    raw = np.empty(n + ALIGNMENT, np.uint8)
    off = -raw.ctypes.data % ALIGNMENT
    return raw[off:off + n].view(dt).reshape(shape)


def _dims(shape: Any) -> list:
    """shape's dims as ints, each 0 ≤ d < 2**63: int() would truncate 3.5 and ctypes
    would wrap 2**64 to 0, giving another shape unsaid."""
    dims = []
    for i, d in enumerate(shape):
        try:
            n = operator.index(d)
        except TypeError:
            raise InputError(f"tpulayout: dim {i} is {d!r}, not an integer") from None
        if not 0 <= n < 1 << 63:
            raise InputError(f"tpulayout: dim {i} is {n}: dims must be 0 to 2**63-1")
        dims.append(n)
    return dims


def _strided_layout(a: np.ndarray) -> Optional[Tuple[list, Optional[list]]]:
    """Reads a's strides as an XLA layout, (minor_to_major, tile): tile is None for a
    dense array (C, Fortran or transposed order); for one whose dims are padded (a slice
    such as ``x[:, 3:100]`` of a bigger array: each stride a multiple of the previous
    one, at least its extent) it is one tile ``(1, P_k-2, …, P_0)`` of the padded extents,
    whose offsets are the strides. None when no layout has these offsets (steps inside
    the minor dim, negative, zero or overlapping strides)."""
    it = a.itemsize
    if a.size == 0 or a.ndim == 0:
        return list(range(a.ndim - 1, -1, -1)), None
    big = [d for d in range(a.ndim) if a.shape[d] > 1]
    if any(a.strides[d] <= 0 or a.strides[d] % it for d in big):
        return None
    big.sort(key=lambda d: (a.strides[d], -d))
    m2m = big + [d for d in range(a.ndim - 1, -1, -1) if a.shape[d] == 1]
    if not big:
        return m2m, None
    if a.strides[big[0]] != it:
        return None
    extents = []  # padded extent of big[j], j < len(big)-1
    for j in range(1, len(big)):
        r, rem = divmod(a.strides[big[j]], a.strides[big[j - 1]])
        if rem or r < a.shape[big[j - 1]]:
            return None
        extents.append(r)
    if all(e == a.shape[d] for e, d in zip(extents, big)):
        return m2m, None
    return m2m, [1] + extents[::-1]


def _within_owner(a: np.ndarray, nbytes: int) -> bool:
    """Whether the nbytes from a's first byte lie inside the memory of the array that
    owns a's data (the Go library sees a padded view as one run of its footprint)."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return False
    lo, hi = np.byte_bounds(root)
    return lo <= a.ctypes.data and a.ctypes.data + nbytes <= hi


def _view_shape(a: np.ndarray, xla: str) -> Optional[str]:
    """The shape text under which the Go library reads or writes a in place, or None
    when it cannot (the caller copies)."""
    lay = _strided_layout(a)
    if lay is None:
        return None
    m2m, tile = lay
    text = _shape_text(xla, a.shape, m2m)
    if tile is None:
        return text
    text = text[:-1] + ":T(" + ",".join(map(str, tile)) + ")}"
    big = m2m[len(tile) - 1]  # the majormost dim of the tile
    if not _within_owner(a, a.shape[big] * a.strides[big]):
        return None
    return text


def _shape_text(xla: str, dims: Sequence[int], m2m: Optional[Sequence[int]] = None) -> str:
    s = f"{xla}[{','.join(str(int(d)) for d in dims)}]"
    if m2m is not None and len(dims) > 0:
        s += "{" + ",".join(str(d) for d in m2m) + "}"
    return s


def _host(a: np.ndarray, device: Optional[str]) -> Tuple[np.ndarray, str]:
    """The host array as the Go library sees it: (array whose bytes it reads, shape
    text). Dense arrays go as they are, their strides read as minor_to_major, and so do
    slices whose dims are padded (as a tiled layout whose padding is never read); other
    strides (steps inside the minor dim, negative or broadcast strides) are copied once
    into C order."""
    xla = _dtypes.host_type(a.dtype, device)
    text = _view_shape(a, xla)
    if text is None:
        a = np.ascontiguousarray(a)
        text = _shape_text(xla, a.shape, list(range(a.ndim - 1, -1, -1)))
    return a, text


def _device_dtype(text: str) -> Optional[str]:
    head = text.split("[", 1)[0].strip()
    return head if head in _dtypes._BITS else None


def _device_shape(layout: Any, dims: Sequence[int], dtype: Any, host_dtype: np.dtype) -> str:
    """Device shape text from layout: a full shape, a layout alone ("{1,0:T(8,128)(2,1)}",
    with dims from the array and dtype or the array's type), or "tpu:GEN" (the
    generation's default layout)."""
    text = str(layout).strip()
    if text.startswith("{") or text.startswith("tpu:"):
        if dtype is not None:
            xla = _dtypes.xla_name(dtype)
        else:
            xla = _dtypes.host_type(host_dtype, None)
        if text.startswith("tpu:"):
            return default_layout(dims, xla, text[4:])
        return _shape_text(xla, dims) + text
    if dtype is not None:
        raise InputError("tpulayout: dtype= goes with a layout alone ('{1,0:…}') or 'tpu:GEN'; "
                         f"{text!r} already names its type")
    return text


# ---------------------------------------------------------------------------------
# Plans


def _dst_shape(src_layout: Any, dst_layout: Any) -> str:
    """dst_layout as a full shape: a layout alone ("{1,0:T(8,128)}") or "tpu:GEN" takes
    the source's dims and element type, as to_device takes the array's."""
    text = str(dst_layout).strip()
    if text.startswith("{") or text.startswith("tpu:"):
        s = _parse_cached(str(src_layout))
        return _device_shape(text, s.dims, s.dtype, np.dtype(np.uint8))
    return str(dst_layout)


def _pad_args(pad: Any) -> Tuple[bytes, float]:
    if pad is None or pad == "leave":
        return b"leave", 0.0
    if isinstance(pad, str):
        raise InputError(f"tpulayout: pad={pad!r}: want a number or 'leave'")
    if pad == 0 and not (isinstance(pad, float) and np.signbit(pad)):
        return b"zero", 0.0
    if isinstance(pad, (int, np.integer)) and not isinstance(pad, bool):
        # The pad travels as a float64: 2**53+1 would arrive as 2**53, unsaid. (The
        # library checks the range of the destination's type: 2**63 for s64, say.)
        try:
            held = str(int(float(pad)))
        except OverflowError:
            held = "no such number (it overflows)"
        if held != str(int(pad)):
            raise InputError(f"tpulayout: pad={int(pad)} cannot be written exactly: the pad travels "
                             f"as a float64, which holds {held}")
    return b"value", float(pad)


_plan_copy = lib.tl_plan_copy


class Plan:
    """A relayout compiled once and run many times: ``Plan(src_layout, dst_layout)``, then
    ``plan.copy(src, out)`` between raw buffers holding exactly each side's footprint.
    A Plan is safe to use from several threads at once; copies release the GIL, allocate
    nothing, and run on ``workers`` goroutines (default: all cores). ``pad`` is what the
    destination's padding gets: 0 (default), another number (converted to the
    destination type) or "leave" (untouched)."""

    def __init__(self, src_layout: Any, dst_layout: Any, *, pad: Any = 0,
                 workers: Optional[int] = None):
        self._handle = 0
        # Below 2**31: ctypes passes a C int, so 2**32 + 1 would arrive as 1, unsaid.
        if workers is not None and (not isinstance(workers, (int, np.integer)) or isinstance(workers, bool)
                                    or not 1 <= workers < 1 << 31):
            raise InputError(f"tpulayout: workers={workers!r}: want a positive int or None")
        padmode, padvalue = _pad_args(pad)
        check_fork()
        h = ctypes.c_size_t()
        desc, err = ctypes.c_void_p(), ctypes.c_void_p()
        dst_layout = _dst_shape(src_layout, dst_layout)
        rc = lib.tl_plan_new(cstr(str(dst_layout), "layout"), cstr(str(src_layout), "layout"),
                             int(workers or 0), padmode, padvalue, ctypes.byref(h),
                             ctypes.byref(desc), ctypes.byref(err))
        if rc != 0:
            raise_error(err)
        self._handle = h.value
        d = json.loads(take_string(desc))
        self.src: str = d["src"]
        self.dst: str = d["dst"]
        self.src_bytes: int = d["src_bytes"]
        self.dst_bytes: int = d["dst_bytes"]
        self.kernel: str = d["kernel"]
        self.description: str = d["describe"]
        self._lock = threading.Lock()

    def copy(self, src: Any, out: Any = None) -> Any:
        """Relays out the bytes of src (any readable contiguous buffer of ``src_bytes``)
        into out (any writable contiguous buffer of ``dst_bytes``; a new uint8 array when
        None) and returns out."""
        saddr = _readable_address(src, "src", self.src_bytes)
        if out is None:
            out = empty(self.dst_bytes)
        self._copy(_writable_address(out, self.dst_bytes), saddr)
        return out

    def _copy(self, dst: int, src: int) -> None:
        """Copies between addresses of buffers already checked to hold the footprints."""
        h = self._handle
        if not h:
            raise InputError("tpulayout: the plan is closed")
        if _lib.forked:
            check_fork()
        # No error slot: the buffers were checked, so a failure is rare, and a failed
        # copy (sizes, overlap, a recovered panic) is run again with one for its message.
        if _plan_copy(h, dst, self.dst_bytes, src, self.src_bytes, None) != 0:
            err = ctypes.c_void_p()
            if _plan_copy(h, dst, self.dst_bytes, src, self.src_bytes, ctypes.byref(err)) != 0:
                raise_error(err)

    __call__ = copy

    def _time_in_go(self, src: Any, out: Any, reps: int) -> float:
        """Seconds per copy of reps copies run inside the Go library (for bench.py: the
        per-call cost of Python and ctypes is copy's time less this)."""
        _, s = _raw(src, "src", self.src_bytes, False)
        _, d = _raw(out, "out", self.dst_bytes, True)
        ns, err = ctypes.c_int64(), ctypes.c_void_p()
        if lib.tl_plan_time(self._handle, d, self.dst_bytes, s, self.src_bytes, reps,
                            ctypes.byref(ns), ctypes.byref(err)) != 0:
            raise_error(err)
        return ns.value / 1e9 / reps

    def close(self) -> None:
        """Frees the plan in the Go library; later copies raise."""
        with self._lock:
            h, self._handle = self._handle, 0
        if h:
            lib.tl_plan_free(h)

    def __enter__(self) -> "Plan":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", 0) and lib is not None:
            self.close()

    def __repr__(self) -> str:
        return f"Plan({self.src!r} -> {self.dst!r}, kernel={self.kernel!r})"


# Plans for small arrays are kept for reuse by to_device, from_device and relayout,
# where compiling one would cost more than the copy. A Plan is immutable and safe for
# concurrent copies, so threads share them; an evicted plan is freed when the last
# copy using it drops it. Large plans are not kept: they may hold scratch arrays of
# their size, and compiling is negligible beside their copies.
_CACHE_MAX_PLANS = 64
_CACHE_MAX_BYTES = 16 << 20  # src + dst footprint of a plan worth keeping
_plans: "OrderedDict[tuple, Plan]" = OrderedDict()
_plans_lock = threading.Lock()


# The plans of recent small to_device and from_device calls by their arguments' types,
# dims and strides, skipping the layout text building and parsing of a call like one
# before. Only calls that read and write the arrays in place as dense layouts are kept
# (not padded views, whose plans depend on the memory around them, nor copies).
_fast: "dict[tuple, Plan]" = {}


def _fast_key(kind: str, a: np.ndarray, layout: Any, dtype: Any, pad: Any, workers: Any) -> Optional[tuple]:
    """The _fast key of a call, or None when its arguments are not simple enough to
    key on exactly (a float pad: 0.0 and -0.0 are equal keys but other pads)."""
    if (type(layout) is str and (dtype is None or type(dtype) is str) and type(pad) in (int, str)
            and (workers is None or type(workers) is int)):
        return (kind, layout, dtype, pad, workers, a.dtype, a.shape, a.strides)
    return None


def _keep_fast(key: Optional[tuple], p: "Plan") -> None:
    with _plans_lock:
        if key is not None and any(q is p for q in _plans.values()):
            if len(_fast) >= 4 * _CACHE_MAX_PLANS:
                _fast.clear()
            _fast[key] = p


@contextmanager
def _cached_plan(src: str, dst: str, pad: Any, workers: Optional[int]) -> Iterator["Plan"]:
    key = (src, dst, _pad_args(pad), workers)
    with _plans_lock:
        p = _plans.get(key)
        if p is not None:
            _plans.move_to_end(key)
    if p is not None and p._handle:
        yield p
        return
    p = Plan(src, dst, pad=pad, workers=workers)
    if p.src_bytes + p.dst_bytes > _CACHE_MAX_BYTES:
        try:
            yield p
        finally:
            p.close()
        return
    with _plans_lock:
        _plans[key] = p
        while len(_plans) > _CACHE_MAX_PLANS:
            _plans.popitem(last=False)
            _fast.clear()  # it may hold the evicted plan
    yield p


# ---------------------------------------------------------------------------------
# Conversions


def to_device(array: Any, layout: Any, *, dtype: Any = None, pad: Any = 0,
              workers: Optional[int] = None, out: Any = None) -> Any:
    """The exact device image of a host array in a device layout.

    ``layout`` is a full shape (``"bf16[8192,8192]{1,0:T(8,128)(2,1)}"``), a layout alone
    (``"{1,0:T(8,128)(2,1)}"``: dims from the array, type from ``dtype`` or the array) or
    ``"tpu:v5e"`` (that generation's default layout). Elements are converted to the
    layout's type as ``tpulayout convert`` does (f32→bf16 rounds to nearest even). A
    uint16 array going to bf16 (uint8 to an f8 type) is taken as raw bits.

    The array may be in C or Fortran order or any transpose of them, or a slice whose
    dims are padded (``x[:, 3:100]``): its bytes are read in place. Other strides (steps
    inside the minor dim, negative, broadcast) are copied once into C order first.
    Returns a new 64-byte-aligned uint8
    array of the footprint, or ``out`` (any writable contiguous buffer of exactly that
    size) filled in."""
    key = _fast_key("to", array, layout, dtype, pad, workers) if type(array) is np.ndarray else None
    p = _fast.get(key) if key is not None else None
    if p is not None and p._handle:  # a call like an earlier one: its plan, no text
        if out is None:
            out = empty(p.dst_bytes)
        p._copy(_writable_address(out, p.dst_bytes), _address(array))
        return out
    a = np.asarray(array)
    dev = _device_shape(layout, a.shape, dtype, a.dtype)
    a, host = _host(a, _device_dtype(dev))
    with _cached_plan(host, dev, pad, workers) as p:
        if out is None:
            out = empty(p.dst_bytes)
        p._copy(_writable_address(out, p.dst_bytes), _address(a))
        if a is array and ":T(" not in host:  # read in place as a dense layout
            _keep_fast(key, p)
        return out


def from_device(buffer: Any, layout: Any, *, dtype: Any = None, out: Optional[np.ndarray] = None,
                workers: Optional[int] = None) -> np.ndarray:
    """The host array a device image holds: ``buffer`` is any readable contiguous
    buffer (bytes, memoryview, mmap, NumPy array) of the footprint of ``layout`` (a full
    shape). Returns a row-major array of ``dtype`` (default: the layout's type; bf16 is
    ``ml_dtypes.bfloat16`` when ml_dtypes is importable, else uint16 holding the bits,
    ``.view(ml_dtypes.bfloat16)`` or ``(a.astype(np.uint32) << 16).view(np.float32)``),
    converting when dtype differs, or fills ``out``: a writable NumPy array of the
    layout's dims, in C or Fortran order or any transpose of them, or a slice whose dims
    are padded (``big[:, 10:110]``: the elements around it are left as they are); other
    strides get the result through one more copy."""
    key = _fast_key("from", out, layout, dtype, 0, workers) if type(out) is np.ndarray else None
    p = _fast.get(key) if key is not None else None
    if p is not None and p._handle and out.flags.writeable:  # a call like an earlier one
        p._copy(_address(out), _readable_address(buffer, "buffer", p.src_bytes))
        return out
    dev = str(layout).strip()
    shape = _parse_cached(dev)
    target = None  # an out that the library cannot write in place: filled from res
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise BufferArgumentError(f"tpulayout: out must be a NumPy array, not {type(out).__name__}")
        if tuple(out.shape) != tuple(shape.dims):
            raise SizeError(f"tpulayout: out has shape {tuple(out.shape)}, want {tuple(shape.dims)}")
        if not out.flags.writeable:
            raise BufferArgumentError("tpulayout: out is read-only")
        if dtype is not None and np.dtype(dtype) != out.dtype:
            raise InputError(f"tpulayout: dtype={dtype!r} but out has dtype {out.dtype}")
        host = _view_shape(out, _dtypes.host_type(out.dtype, shape.dtype))
        res = out
        if host is None:  # steps in the minor dim, negative strides: one more copy
            target, res = out, empty(shape.dims, out.dtype)
    else:
        if dtype is None:
            npdt = _dtypes.numpy_type(shape.dtype)
        elif isinstance(dtype, str) and dtype in _dtypes._BITS:  # an XLA name: "bf16", "f32"
            npdt = _dtypes.numpy_type(dtype)
        else:
            npdt = np.dtype(dtype)
        res = empty(shape.dims, npdt)
    if res is not out:
        host = _shape_text(_dtypes.host_type(res.dtype, shape.dtype), res.shape,
                           list(range(res.ndim - 1, -1, -1)))
    # "leave": the padding of a padded out view holds the caller's other elements.
    with _cached_plan(dev, host, "leave", workers) as p:
        p._copy(_address(res), _readable_address(buffer, "buffer", p.src_bytes))
        if res is out and ":T(" not in host:  # written in place as a dense layout
            _keep_fast(key, p)
    if target is not None:
        np.copyto(target, res)
        return target
    return res


def relayout(src: Any, src_layout: Any, dst_layout: Any, *, out: Any = None, pad: Any = 0,
             workers: Optional[int] = None) -> Any:
    """Relays out raw bytes from one layout to another (types may differ: the elements
    are converted). src is any readable contiguous buffer of src_layout's footprint;
    returns a new uint8 array or ``out`` filled in. For repeated copies, use
    :class:`Plan`."""
    with _cached_plan(str(src_layout), _dst_shape(src_layout, dst_layout), pad, workers) as p:
        return p.copy(src, out)


# ---------------------------------------------------------------------------------
# Information


@dataclass(frozen=True)
class Shape:
    """A parsed array shape: canonical text (``str(shape)``), element type, dims,
    minor_to_major, tiles (tuples; a combined dim is "*"), bits per element and
    footprint in bytes."""
    text: str
    dtype: str
    dims: Tuple[int, ...]
    minor_to_major: Tuple[int, ...]
    tiles: Tuple[Tuple[Union[int, str], ...], ...]
    element_bits: int
    footprint_bytes: int

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Info:
    """What ``tpulayout info --json`` prints, plus the count of first-level tiles and
    the TPU view (``tpu``: bytes, padding, tiles, vregs, whether it fits HBM/VMEM on the
    generation; None when the layout has no tiles or does not load into vregs).
    ``physical_order`` is the logical dims from major to minor (minor_to_major reversed).
    The insight on the generation follows as in the CLI: ``expansion`` (footprint /
    logical bytes), ``default_layout`` and ``cheapest`` (dicts: shape, bytes, expansion,
    order, tile_rows, default) or ``no_tpu_layout`` (why there are none), and
    ``host_row_blocks`` (run, rows, pieces, identical, bytes, note).
    ``xla_array_size_bytes`` is XLA's ShapeUtil::ArraySize where it differs from
    ``footprint_bytes`` (a later tile that does not divide the one above), else 0."""
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
    tpu: Optional[dict] = field(default=None)
    physical_order: Tuple[int, ...] = ()
    expansion: float = 0.0
    generation: str = ""
    default_layout: Optional[dict] = None
    cheapest: Tuple[dict, ...] = ()
    no_tpu_layout: str = ""
    host_row_blocks: Optional[dict] = None
    xla_array_size_bytes: int = 0

    def __str__(self) -> str:
        return self.shape


@dataclass(frozen=True)
class SparseInfo:
    """What ``tpulayout info --json`` prints for a sparse layout (``D(...)`` with a level
    other than D): its dim level types (one per dim, as written: "D", "C+", "S~", ...),
    index and pointer types, physical shape, and what they mean. Its footprint depends
    on the number of elements it stores, which the shape does not say, so it has no
    sizes; sparse layouts are not supported by to_device, relayout or Plan."""
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
    sparse: bool = True

    def __str__(self) -> str:
        return self.shape


def _sparse_info(d: dict) -> SparseInfo:
    return SparseInfo(d["shape"], d["dtype"], tuple(d["dims"]), tuple(d["minor_to_major"]),
                      tuple(d["physical_order"]), tuple(d["dim_level_types"]),
                      d.get("index_type", ""), d.get("pointer_type", ""),
                      d.get("physical_shape", ""), d.get("memory_space", 0),
                      d["logical_elements"], d["meaning"], d["footprint"])


def _info_json(layout: Any, gen: Optional[str]) -> dict:
    return json.loads(call_string(lib.tl_info, cstr(str(layout), "layout"), cstr(gen or "", "gen")))


def parse(layout: Any) -> Shape:
    """Parses and validates an array shape such as ``"bf16[256,1024]{1,0:T(8,128)(2,1)}"``.
    Raises LayoutError (a ValueError) with the Go library's message and ``position``."""
    d = _info_json(layout, None)
    if d.get("sparse"):
        raise InputError(f"tpulayout: {d['shape']}: sparse layouts are not supported by convert "
                         f"(its footprint {d['footprint']}); info() describes it")
    return Shape(d["shape"], d["dtype"], tuple(d["dims"]), tuple(d["minor_to_major"]),
                 tuple(tuple(t) for t in d["tiles"]), d["element_bits"], d["footprint_bytes"])


@functools.lru_cache(maxsize=256)
def _parse_cached(text: str) -> Shape:
    return parse(text)


def info(layout: Any, gen: Optional[str] = None) -> Union[Info, SparseInfo]:
    """Sizes, padding and tiles of an array shape, and the insight of ``tpulayout
    info`` (see :class:`Info`); gen picks the TPU generation of the ``tpu`` view and the
    insight (default v5e). A sparse layout gives a
    :class:`SparseInfo` instead."""
    d = json.loads(call_string(lib.tl_report, json.dumps(
        {"report": "info", "layout": str(layout), "gen": gen or ""}).encode()))
    if d.get("sparse"):
        return _sparse_info(d)
    return Info(
        d["shape"], d["dtype"], tuple(d["dims"]), tuple(d["minor_to_major"]),
        tuple(tuple(t) for t in d["tiles"]), d.get("tail_padding", 0),
        tuple((lv["name"], tuple(lv["dims"])) for lv in d["levels"]),
        d["element_bits"], d["logical_elements"], d["logical_bytes"], d["footprint_elements"],
        d["footprint_bytes"], d["padding_elements"], d["padding_fraction"], d["tile_count"],
        d["tpu"], tuple(d["physical_order"]), d["expansion"], d["generation"],
        d.get("default_layout"), tuple(d.get("cheapest", ())), d.get("no_tpu_layout", ""),
        d["host_row_blocks"], d.get("xla_array_size_bytes", 0))


def default_layout(shape: Sequence[int], dtype: Any, gen: Optional[str] = None) -> str:
    """The device shape XLA gives an array of these dims and type on a TPU generation
    (default v5e), e.g. ``default_layout((256, 1024), "bf16")`` is
    ``"bf16[256,1024]{1,0:T(8,128)(2,1)}"``. dtype is an XLA name or a NumPy dtype."""
    dims = _dims(shape)
    arr = (ctypes.c_int64 * max(len(dims), 1))(*dims)
    return call_string(lib.tl_default_layout, _dtypes.xla_name(dtype).encode(), arr, len(dims),
                       cstr(gen or "", "gen"))
