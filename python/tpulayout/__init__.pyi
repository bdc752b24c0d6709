"""Type hints of the tpulayout package."""

from typing import Any, Optional, Protocol, Sequence, Tuple, Union

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
