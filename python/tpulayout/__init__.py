"""tpulayout: exact TPU memory layouts for NumPy arrays, backed by the Go library.

Convert a host array to the bytes a TPU holds (:func:`to_device`), read a device image
back (:func:`from_device`), relayout raw bytes between any two XLA layouts
(:func:`relayout`, :class:`Plan`), check a dump against a reference (:func:`validate`,
:func:`check`), and inspect layouts (:func:`parse`, :func:`info`, :func:`default_layout`, :func:`explain`),
HLO dumps (:func:`hlo`) and Pallas block shapes (:func:`blockspec`), ask the layout
algebra (:func:`cute`, :func:`whereis`, :func:`equal`, :func:`copymap`, :func:`blocks`,
:func:`padding`), and convert a
checkpoint onto a device mesh (:func:`shard`, :func:`merge`; :func:`place` says where a
tensor's pieces would go), check it (:func:`verify`),
read it back per device (:func:`manifest`, :class:`Sharded`) or reassemble it
(:func:`gather`).
Copies read and write the caller's buffers in place and release the GIL. The arrays
they use are remembered by weak reference for their addresses, so NumPy's in-place
``ndarray.resize`` refuses them afterwards (``np.resize`` makes a new array and is not
affected).
"""

from ._errors import (BufferArgumentError, InputError, InternalError, LayoutError,
                      LayoutMismatch, ShapeError, SizeError, TpulayoutError)
from ._core import (Info, Plan, Shape, SparseInfo, default_layout, empty, from_device, info,
                    parse, relayout, to_device)
from ._algebra import blocks, copymap, cute, equal, padding, whereis
from ._reports import blockspec, explain, gather, hlo, verify
from ._sharded import Sharded, manifest, merge, place, shard
from ._validate import Report, check, validate

__all__ = [
    "to_device", "from_device", "relayout", "Plan", "empty", "parse", "info", "default_layout",
    "explain", "hlo", "blockspec", "verify", "gather", "shard", "merge", "manifest", "place", "Sharded",
    "cute", "whereis", "equal", "copymap", "blocks", "padding",
    "validate", "check", "Report", "Shape", "Info", "SparseInfo",
    "TpulayoutError", "LayoutError", "ShapeError", "SizeError", "BufferArgumentError",
    "InputError", "InternalError", "LayoutMismatch",
]
