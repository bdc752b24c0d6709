"""Loading libtpulayout (the Go library built with -buildmode=c-shared) through ctypes,
and turning its errors into Python exceptions."""

from __future__ import annotations

import ctypes
import json
import os
import sys
from pathlib import Path

from ._errors import InputError, LayoutError, from_json


def _libname() -> str:
    if sys.platform == "darwin":
        return "libtpulayout.dylib"
    if sys.platform == "win32":
        return "tpulayout.dll"
    return "libtpulayout.so"


def _find() -> Path:
    env = os.environ.get("TPULAYOUT_LIB")
    if env:
        return Path(env)
    return Path(__file__).with_name(_libname())


def cstr(text: str, what: str) -> bytes:
    """text as a C string argument of the library. A C string ends at its first NUL, so
    a NUL inside text is refused, naming what and its position, rather than cut short:
    LayoutError (with ``position``) for a layout, InputError otherwise."""
    if "\0" not in text:
        return text.encode()
    pos = text.index("\0")
    msg = f"tpulayout: {what} {text!r} holds a NUL character at position {pos}"
    if what.endswith("layout"):
        raise LayoutError(msg, pos, text)
    raise InputError(msg)


def _load() -> ctypes.CDLL:
    path = _find()
    if not path.exists():
        raise ImportError(
            f"tpulayout: the shared library {path} is missing; build it from the repository with "
            f"`go build -buildmode=c-shared -o {path} ./python/capi` (or `python3 python/build_lib.py`), "
            "or point TPULAYOUT_LIB at it")
    # CDLL (not PyDLL): ctypes releases the GIL for the duration of every foreign call.
    lib = ctypes.CDLL(str(path))
    vp, cp, i64 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64
    out = ctypes.POINTER(ctypes.c_void_p)
    lib.tl_free.argtypes = [vp]
    lib.tl_free.restype = None
    lib.tl_plan_new.argtypes = [cp, cp, ctypes.c_int, cp, ctypes.c_double,
                                ctypes.POINTER(ctypes.c_size_t), out, out]
    lib.tl_plan_new.restype = ctypes.c_int
    lib.tl_plan_copy.argtypes = [ctypes.c_size_t, vp, i64, vp, i64, out]
    lib.tl_plan_copy.restype = ctypes.c_int
    lib.tl_plan_time.argtypes = [ctypes.c_size_t, vp, i64, vp, i64, i64, ctypes.POINTER(i64), out]
    lib.tl_plan_time.restype = ctypes.c_int
    lib.tl_plan_free.argtypes = [ctypes.c_size_t]
    lib.tl_plan_free.restype = None
    lib.tl_info.argtypes = [cp, cp, out, out]
    lib.tl_info.restype = ctypes.c_int
    lib.tl_default_layout.argtypes = [cp, ctypes.POINTER(i64), ctypes.c_int, cp, out, out]
    lib.tl_default_layout.restype = ctypes.c_int
    lib.tl_report.argtypes = [cp, out, out]
    lib.tl_report.restype = ctypes.c_int
    lib.tl_checksum.argtypes = [cp, vp, i64, out, out]
    lib.tl_checksum.restype = ctypes.c_int
    lib.tl_read_image.argtypes = [cp, cp, vp, i64, out]
    lib.tl_read_image.restype = ctypes.c_int
    if hasattr(lib, "tl_validate"):
        lib.tl_validate.argtypes = [vp, i64, cp, vp, i64, cp, cp, out, out]
        lib.tl_validate.restype = ctypes.c_int
    return lib


lib = _load()

# The Go runtime's threads do not survive fork: a call in a forked child would hang.
forked = False


def _after_fork_in_child() -> None:
    global forked
    forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def check_fork() -> None:
    """Raises instead of hanging when called in a child forked after loading the library."""
    if forked:
        from ._errors import TpulayoutError
        raise TpulayoutError("tpulayout: cannot run in a process forked after tpulayout was "
                             "imported (the Go runtime does not survive fork); use "
                             "multiprocessing's 'spawn' or 'forkserver' start method")


def take_string(p: ctypes.c_void_p) -> str:
    """Reads a C string the library allocated and frees it."""
    if not p.value:
        return ""
    try:
        return ctypes.string_at(p.value).decode("utf-8")
    finally:
        lib.tl_free(p)


def raise_error(err: ctypes.c_void_p) -> None:
    """Raises the exception for the error JSON the library set in err."""
    raise from_json(json.loads(take_string(err)))


def call_string(fn, *args) -> str:
    """Calls an export of the form f(args..., char **out, char **err) and returns *out."""
    check_fork()
    res, err = ctypes.c_void_p(), ctypes.c_void_p()
    if fn(*args, ctypes.byref(res), ctypes.byref(err)) != 0:
        raise_error(err)
    return take_string(res)
