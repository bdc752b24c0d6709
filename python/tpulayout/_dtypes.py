"""NumPy dtypes and XLA element types."""

from __future__ import annotations

import numpy as np

try:  # optional: bf16, f8 and int4 as real NumPy types
    import ml_dtypes  # type: ignore
except ImportError:  # pragma: no cover - depends on the machine
    ml_dtypes = None

# XLA element types with a native NumPy dtype.
_NATIVE = {
    "pred": np.dtype(np.bool_),
    "s8": np.dtype(np.int8), "s16": np.dtype(np.int16), "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8), "u16": np.dtype(np.uint16), "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
    "c64": np.dtype(np.complex64), "c128": np.dtype(np.complex128),
}
_FROM_NATIVE = {v: k for k, v in _NATIVE.items()}

# XLA names of ml_dtypes' types.
_ML = {
    "bfloat16": "bf16", "float8_e5m2": "f8e5m2", "float8_e4m3": "f8e4m3",
    "float8_e4m3fn": "f8e4m3fn", "float8_e4m3b11fnuz": "f8e4m3b11fnuz",
    "float8_e3m4": "f8e3m4", "float8_e5m2fnuz": "f8e5m2fnuz", "float8_e4m3fnuz": "f8e4m3fnuz",
    "float4_e2m1fn": "f4e2m1fn", "float8_e8m0fnu": "f8e8m0fnu",
    "int4": "s4", "uint4": "u4", "int2": "s2", "uint2": "u2",
}
_TO_ML = {v: k for k, v in _ML.items()}

# Bits of each XLA type, and whether it is a float type NumPy lacks.
_BITS = {
    "pred": 1, "s1": 1, "s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u1": 1, "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f8e5m2": 8, "f8e4m3": 8, "f8e4m3fn": 8,
    "f8e4m3b11fnuz": 8, "f8e3m4": 8, "f8e5m2fnuz": 8, "f8e4m3fnuz": 8, "f4e2m1fn": 4,
    "f8e8m0fnu": 8, "c64": 64, "c128": 128,
}


def storage_bits(xla: str) -> int:
    """Bits an element of type xla takes without E(n): a whole number of bytes."""
    return (_BITS.get(xla, 8) + 7) // 8 * 8


def _is_bits_type(xla: str) -> bool:
    """A float type NumPy has no dtype for: without ml_dtypes its elements travel as raw
    bits in an unsigned integer array of the same width."""
    return xla not in _NATIVE and xla[0] in "bf"


def host_type(dt: np.dtype, device: str | None) -> str:
    """The XLA type of a host array of NumPy dtype dt, going to or from a device array
    of type device. An unsigned integer array of the storage width of a float type NumPy
    lacks (uint16 for bf16, uint8 for the f8 types) holds that type's raw bits."""
    dt = np.dtype(dt)
    if device is None or not _is_bits_type(device):
        x = _FROM_NATIVE.get(dt)  # the common case: a native little-endian dtype
        if x is not None and dt.byteorder != ">":
            return x
    if ml_dtypes is not None and dt.name in _ML:
        return _ML[dt.name]
    if (device is not None and _is_bits_type(device) and dt.kind == "u"
            and dt.itemsize * 8 == storage_bits(device)):
        return device
    if dt.byteorder == ">" or (dt.byteorder == "=" and np.little_endian is False):
        raise TypeError(f"tpulayout: big-endian dtype {dt} is not supported; use .astype('<{dt.char}')")
    try:
        return _FROM_NATIVE[dt.newbyteorder("=")]
    except KeyError:
        raise TypeError(f"tpulayout: NumPy dtype {dt} has no XLA element type") from None


def numpy_type(xla: str) -> np.dtype:
    """The NumPy dtype from_device returns for device type xla by default: the native
    one, else ml_dtypes' type when it is importable; without ml_dtypes, float types come
    as raw bits (uint16 for bf16: ``.view(ml_dtypes.bfloat16)`` later, or widen with
    ``(a.astype(np.uint32) << 16).view(np.float32)``) and sub-byte integers as int8/uint8."""
    if xla in _NATIVE:
        return _NATIVE[xla]
    if ml_dtypes is not None and xla in _TO_ML:
        return np.dtype(getattr(ml_dtypes, _TO_ML[xla]))
    if xla[0] == "s":
        return np.dtype(np.int8)
    if xla[0] == "u":
        return np.dtype(np.uint8)
    return np.dtype(f"u{storage_bits(xla) // 8}")


def xla_name(dtype) -> str:
    """XLA name of a dtype argument: an XLA name string ("bf16") or anything np.dtype takes."""
    if isinstance(dtype, str) and dtype in _BITS:
        return dtype
    return host_type(np.dtype(dtype), None)
