"""validate() and check(): a device dump against a reference array, through the Go
package validate (what `tpulayout validate --json` reports)."""

from __future__ import annotations

import ctypes
import json
import operator
import sys
from typing import Any, Optional

import numpy as np

from ._core import _device_dtype, _host, _parse_cached as parse, _raw
from ._errors import InputError, LayoutMismatch
from ._lib import check_fork, cstr, lib, raise_error, take_string


class Report:
    """What :func:`validate` finds: the object ``tpulayout validate --json`` prints.

    The main fields are attributes: ``ok``, ``mismatches`` (count), ``first`` (the
    first mismatching elements, dicts with index, byte_offset, tile, vreg, sublane,
    lane, slot, expected, actual and their bits), ``diagnosis`` (None when everything
    matches, else a dict whose ``best`` names the arrangement the dump seems to hold),
    ``elements``, ``padding_mismatches``; every other key of the JSON is an attribute
    too, and ``json`` is the whole dict. ``str(report)`` is the command's human report
    and ``summary`` its one-line summary."""

    def __init__(self, data: dict, text: str, summary: str):
        self.json = data
        self.text = text
        self.summary = summary

    @property
    def ok(self) -> bool:
        return bool(self.json["ok"])

    @property
    def mismatches(self) -> int:
        return int(self.json["mismatches"])

    @property
    def first(self) -> list:
        return self.json.get("first") or []

    @property
    def diagnosis(self) -> Optional[dict]:
        return self.json.get("diagnosis")

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["json"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Report ok={self.ok} {self.summary}>"


def _whole(name: str, v: Any, limit: int) -> int:
    try:
        n = operator.index(v)  # int(1.5) would be 1, unsaid
    except TypeError:
        raise InputError(f"tpulayout: {name}={v!r}: want a whole number") from None
    if not 0 <= n < limit:
        raise InputError(f"tpulayout: {name}={n}: want 0 or more (below {limit})")
    return n


def _tolerances(ulp: Any, abs_: Any, rel: Any) -> dict:
    """The tolerances as the Go side's JSON takes them, checked as the CLI's --tol is:
    a negative, NaN or non-numeric one is an error rather than a Go JSON message or a
    silently truncated value. JSON has no Infinity: inf travels as the largest float."""
    tol = {"ulp": _whole("ulp", ulp, 1 << 64)}
    for name, v in (("abs", abs_), ("rel", rel)):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise InputError(f"tpulayout: {name}={v!r}: want a number ≥ 0") from None
        if not f >= 0:  # also NaN
            raise InputError(f"tpulayout: {name}={v!r}: want a number ≥ 0")
        tol[name] = min(f, sys.float_info.max)
    return tol


def validate(dump: Any, layout: Any, ref: Any, *, ref_layout: Any = None, ulp: int = 0,
             abs: float = 0.0, rel: float = 0.0, check_padding: bool = False,
             gen: Optional[str] = None, max_listed: int = 20) -> Report:
    """Checks that ``dump`` (any readable contiguous buffer: the raw bytes of a device
    buffer, exactly the footprint of ``layout``, a full shape) holds ``ref``.

    ``ref`` is a NumPy array of the same dims (any dense order; other strides are
    copied), or raw bytes in ``ref_layout``. Elements are compared in the dump's type
    (an f32 reference against a bf16 dump is rounded to bf16 first); ``ulp``, ``abs``
    and ``rel`` relax the match, ``check_padding`` also requires zero padding, ``gen``
    picks the vreg geometry of the report (default v5e) and ``max_listed`` how many
    mismatches it lists. Bad input raises (SizeError, ShapeError, InputError); a dump
    that does not match returns a Report with ``ok`` False (see :func:`check`)."""
    dev = str(layout).strip()
    if ref_layout is None:
        a = np.asarray(ref)
        if a.dtype.kind in "SU":
            # np.asarray makes one |S string of bytes, which has no element type.
            raise InputError(f"tpulayout: ref is {type(ref).__name__} ({a.dtype}), not a typed array: "
                             "raw bytes need ref_layout= (e.g. ref_layout='f32[3,5]')")
        a, ref_shape = _host(a, _device_dtype(dev))
        # A padded slice is read in place as a tiled layout: its footprint, not a.nbytes.
        raddr, rlen = a.ctypes.data, parse(ref_shape).footprint_bytes
    else:
        ref_shape = str(ref_layout)
        r, raddr = _raw(ref, "ref", parse(ref_shape).footprint_bytes, False)
        rlen = r.nbytes
    d, daddr = _raw(dump, "dump", parse(dev).footprint_bytes, False)
    tol = _tolerances(ulp, abs, rel)
    max_listed = _whole("max_listed", max_listed, 1 << 63)
    opts = json.dumps({**tol, "check_padding": bool(check_padding), "gen": gen or "",
                       "max_listed": min(max_listed, (1 << 31) - 1) if max_listed > 0 else -1})
    check_fork()
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    rc = lib.tl_validate(daddr, d.nbytes, cstr(dev, "layout"), raddr, rlen, cstr(ref_shape, "ref layout"),
                         opts.encode(), ctypes.byref(out), ctypes.byref(err))
    if rc != 0:
        raise_error(err)
    res = json.loads(take_string(out))
    return Report(res["report"], res["text"], res["summary"])


def check(dump: Any, layout: Any, ref: Any, **kwargs: Any) -> Report:
    """:func:`validate`, raising :class:`LayoutMismatch` (with the report as ``.report``)
    when the dump does not hold the reference; returns the report otherwise."""
    rep = validate(dump, layout, ref, **kwargs)
    if not rep.ok:
        msg = f"tpulayout: {rep.summary}"
        diag = rep.diagnosis
        if diag:
            best = diag["best"]
            msg += f" ({best['description']}: {best['layout']})"
        raise LayoutMismatch(msg, rep)
    return rep
