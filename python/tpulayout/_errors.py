"""Exception classes: every error of the Go library arrives as one of these."""

from __future__ import annotations

from typing import Any


class TpulayoutError(Exception):
    """Base class of every tpulayout error."""


class LayoutError(TpulayoutError, ValueError):
    """A malformed or invalid shape or layout string. ``position`` is the byte offset in
    ``text`` where it goes wrong (as in the Go library's ParseError), or -1."""

    def __init__(self, message: str, position: int = -1, text: str = ""):
        super().__init__(message)
        self.position = position
        self.text = text


class ShapeError(TpulayoutError, ValueError):
    """Arrays or layouts whose logical dims do not match."""


class SizeError(TpulayoutError, ValueError):
    """A buffer of the wrong size; the message names both sizes."""


class BufferArgumentError(TpulayoutError, ValueError):
    """A buffer argument that cannot be used as given: read-only where it is written,
    not contiguous where contiguous bytes are needed, not a buffer at all."""


class InputError(TpulayoutError, ValueError):
    """Any other bad input the Go library rejects (an unknown dtype or generation, a
    conversion it does not support, a bad option)."""


class InternalError(TpulayoutError, RuntimeError):
    """A bug in tpulayout, caught at the library boundary instead of crashing."""


class LayoutMismatch(TpulayoutError, AssertionError):
    """Raised by :func:`tpulayout.check` when a dump does not hold the reference;
    ``report`` is the :class:`tpulayout.Report`."""

    def __init__(self, message: str, report: Any):
        super().__init__(message)
        self.report = report


def from_json(e: dict) -> TpulayoutError:
    kind, msg = e.get("kind"), e.get("msg", "")
    if kind == "layout":
        return LayoutError(msg, e.get("pos", -1), e.get("input", ""))
    cls = {"shape": ShapeError, "size": SizeError, "internal": InternalError}.get(kind, InputError)
    return cls(msg)
