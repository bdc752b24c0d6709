"""The sharded conversion of a safetensors checkpoint onto a device mesh, over the Go
package sharding (sharding.Convert, MergeOutdir, OpenOutdir): the same code and the same
JSON as `tpulayout convert --mesh … --json` and `tpulayout manifest merge --json`, and a
reader of its per-device images through :func:`from_device`."""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ._core import _pad_args, from_device
from ._errors import InputError
from ._lib import call_string, check_fork, cstr, lib, raise_error
from ._reports import _report


def _path(p: Any) -> str:
    return os.fspath(p) if isinstance(p, os.PathLike) else str(p)


def _rules(rules: Any) -> Any:
    """The request's rules: a rules file's path, or the file's object itself (a dict as
    the file holds it; a list of rules, each a {"match", "spec"} dict or a (match, spec)
    pair, with no default), which Go checks as it checks the file."""
    if rules is None:
        return ""
    if isinstance(rules, (str, os.PathLike)):
        return _path(rules)
    if isinstance(rules, dict):
        obj: Any = rules
    elif isinstance(rules, (list, tuple)):
        obj = {"rules": [{"match": r[0], "spec": r[1]} if isinstance(r, (list, tuple)) and len(r) == 2 else r
                         for r in rules]}
    else:
        raise InputError(f"tpulayout: rules={type(rules).__name__}: want a rules file's path, "
                         "a dict as the file holds it, or a list of rules")
    try:
        json.dumps(obj)
    except (TypeError, ValueError) as e:  # a PartitionSpec object, say, for a spec's text
        raise InputError(f"tpulayout: rules: {e} (specs are text such as 'P(\"data\", None)')") from None
    return obj


def _whole_int(x: Any, what: str) -> int:
    """x as an int: an int or NumPy integer, not a bool (True is no process number), a
    float or a string, which int() would take."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"tpulayout: {what} {x!r} is a {type(x).__name__}, want an int")
    return int(x)


def _process(process: Any) -> Tuple[int, int]:
    """shard's process=(i, n) as two ints; None is one process."""
    if process is None:
        return 0, 0
    if isinstance(process, (str, bytes)):
        raise TypeError(f"tpulayout: process={process!r}: want a pair of ints (i, n)")
    try:
        items = tuple(process)
    except TypeError:
        raise TypeError(f"tpulayout: process={process!r}: want a pair of ints (i, n)") from None
    if len(items) != 2:
        raise InputError(f"tpulayout: process={process!r}: want (i, n)")
    return (_whole_int(items[0], f"process={process!r}: i"), _whole_int(items[1], f"process={process!r}: n"))


def shard(checkpoint: Any, out_dir: Any, *, mesh: str, spec: Optional[str] = None,
          rules: Any = None, to: str, dtype: Optional[str] = None,
          devices: Any = None, process: Optional[Tuple[int, int]] = None,
          tensor: Optional[str] = None, pad: Any = 0, checksum: Optional[str] = None) -> dict:
    """Converts a safetensors checkpoint (a file, or a sharded checkpoint's index
    .json; a path or an s3:// or gs:// URL) into the per-device images of a mesh in
    out_dir (a new or empty directory, or a bucket prefix), as ``tpulayout convert
    CKPT OUT_DIR --mesh MESH --all`` does: ``mesh`` such as ``"data=2,model=4"``; one
    ``spec`` for every tensor (``'P("data", "model")'``) or a ``rules`` file; ``to`` the
    shards' layout (``"tpu:v5e"``, a layout alone ``"{1,0:T(8,128)(2,1)}"``, a dtype);
    ``rules`` may also be the file's object itself, a dict
    (``{"rules": [{"match": REGEX, "spec": SPEC}, …], "default": SPEC}``), or a list of
    rules (``{"match", "spec"}`` dicts or ``(match, spec)`` pairs), checked as the file
    is; ``to`` may also be ``hlo:MODULE.txt:param=N``, the layout a compiled program
    gives each shard; ``dtype`` the images' element type for floating-point tensors; ``devices`` the ids
    in row-major mesh order (a list, or text "0,1,2,3"); ``process=(i, n)`` writes
    process i of n's devices and its partial manifest (join them with :func:`merge`);
    ``tensor`` converts one tensor only; ``checksum`` is the images' checksum in the
    manifest, ``"crc32c"`` (the default, as ``--checksum``) or ``"sha256"``. Returns the dict ``--json`` prints:
    ``manifest_path``, ``bytes``, ``tensors`` (name, spec, layout, shards), ``guessed``
    (with ``to="tpu:GEN"``, the tensors whose default layout is a guess: the CLI's note)
    and the ``manifest``. Bad options raise :class:`InputError` with the CLI's message."""
    proc, procs = _process(process)
    if devices is not None and not isinstance(devices, str):
        devices = [_whole_int(d, f"devices={devices!r}: device id") for d in devices]
    padmode, padvalue = _pad_args(pad)
    return _report(report="shard", checkpoint=_path(checkpoint), out=_path(out_dir), mesh=str(mesh),
                   spec=spec or "", rules=_rules(rules), to=str(to),
                   dtype=dtype or "", devices=devices, process=proc, processes=procs,
                   tensor=tensor or "", all=tensor is None, pad=padmode.decode(), pad_value=padvalue,
                   checksum=checksum or "")


def place(shape: Any, *, mesh: str, spec: Optional[str] = None, rules: Any = None,
          tensor: Optional[str] = None, devices: Any = None) -> dict:
    """Where the pieces of an array of ``shape`` go on a mesh, without reading or
    writing data, as ``tpulayout place SHAPE --json`` says and a sharded conversion
    (:func:`shard`) would place them: ``shape`` an XLA shape such as
    ``"bf16[4096,1024]"`` (a layout, if given, does not change the ranges); ``mesh``,
    ``spec``, ``rules`` and ``devices`` as for :func:`shard`; ``tensor`` the tensor's
    name, which ``rules`` match (needed with them). Returns the dict ``--json`` prints:
    ``name`` (with ``tensor``), ``dtype``, ``shape``, ``spec``, ``mesh``,
    ``shard_shape`` and ``shards``, one ``{"index", "ranges", "devices"}`` per distinct
    shard, its ``ranges`` ``[start, end)`` per dim and the ``devices`` holding it (as in
    a manifest, a long list of consecutive ids on a mesh of over 64 devices is the text
    ``"0-255"``). A dim that its mesh axes do not divide raises :class:`InputError` with
    the conversion's message, as ``jax.device_put`` refuses it."""
    if devices is not None and not isinstance(devices, str):
        devices = [int(d) for d in devices]
    return _report(report="place", layout=str(shape), mesh=str(mesh), spec=spec or "",
                   rules=_rules(rules), tensor=tensor or "", devices=devices)


def merge(out_dir: Any, *, quick: bool = False) -> dict:
    """Joins the partial manifests that the processes of a sharded conversion
    (:func:`shard` with ``process=(i, n)``) wrote into out_dir's manifest.json, as
    ``tpulayout manifest merge --json`` does, after checking that they agree and that
    every listed file is there with its size and checksum (``quick``: sizes only; a
    bucket prefix always checks both). Returns the merged manifest."""
    return _report(report="merge", dir=_path(out_dir), quick=bool(quick))


def manifest(out_dir: Any) -> dict:
    """The manifest of the finished sharded conversion in out_dir (a directory or a
    bucket prefix), as a dict with the fields of its manifest.json; the per-device
    table is there even where the file leaves it out (meshes of over 64 devices)."""
    with Sharded(out_dir) as s:
        return s.manifest


class Sharded:
    """A finished sharded conversion opened for reading: ``Sharded(out_dir)``, a
    directory or a bucket prefix (whose images are read by ranges as they are asked
    for, nothing copied to local disk). ``manifest`` is its manifest;
    :meth:`device_arrays` gives what one device holds, :meth:`shard` one tensor's shard
    there, and :meth:`array` a tensor's global array, each read back from the images
    with :func:`from_device`. Every image read is checked against its size and
    (``check=True``, the default) its checksum in the manifest, of the algorithm the
    manifest names (crc32c or sha256), computed by the Go library."""

    def __init__(self, out_dir: Any, *, check: bool = True):
        r = _report(report="open", dir=_path(out_dir))
        self.path = _path(out_dir)
        self.dir: str = r["dir"]  # "" for a bucket
        self.manifest: dict = r["manifest"]
        self.check = check
        self._tensors = {t["name"]: (k, t) for k, t in enumerate(self.manifest["tensors"])}
        self._devices = {d["id"]: d for d in self.manifest.get("devices", [])}
        self._files = {s["file"]: s for t in self.manifest["tensors"] for s in t["shards"]}

    @property
    def devices(self) -> List[int]:
        """The device ids, in row-major order of the mesh."""
        return [d["id"] for d in self.manifest.get("devices", [])]

    @property
    def tensors(self) -> List[str]:
        """The tensors' names, in the manifest's order."""
        return [t["name"] for t in self.manifest["tensors"]]

    def _tensor(self, name: str) -> Tuple[int, dict]:
        try:
            return self._tensors[name]
        except KeyError:
            raise InputError(f"tpulayout: {self.path} has no tensor {name!r}") from None

    def _read(self, s: dict, t: dict) -> np.ndarray:
        if not self.dir:  # a bucket: the object by ranges, which checks its size
            data = np.empty(s["bytes"], dtype=np.uint8)
            check_fork()
            err = ctypes.c_void_p()
            if lib.tl_read_image(cstr(self.path, "path"), cstr(s["file"], "file"), data.ctypes.data, data.size,
                                 ctypes.byref(err)) != 0:
                raise_error(err)
        else:
            data = np.fromfile(os.path.join(self.dir, *s["file"].split("/")), dtype=np.uint8)
        if data.size != s["bytes"]:
            raise InputError(f"tpulayout: {s['file']} has {data.size} bytes, the manifest says {s['bytes']}")
        if self.check:
            alg = self.manifest["checksum"]  # Go checked that every shard carries it
            got = call_string(lib.tl_checksum, alg.encode(), data.ctypes.data, data.nbytes)
            if got != s[alg]:
                raise InputError(f"tpulayout: {s['file']} does not match its {alg} in the manifest")
        return from_device(data, t["layout"])

    def shard(self, tensor: str, device: int) -> np.ndarray:
        """The shard of ``tensor`` that ``device`` holds, row-major (its ``shard_shape``)
        in the images' dtype."""
        k, t = self._tensor(tensor)
        d = self._devices.get(int(device))
        if d is None:
            raise InputError(f"tpulayout: {self.path}: no device {device} in the mesh (devices {self.devices})")
        return self._read(self._files[d["files"][k]], t)

    def device_arrays(self, device: int) -> Dict[str, np.ndarray]:
        """Every tensor's shard on ``device``: {name: array}."""
        return {name: self.shard(name, device) for name in self.tensors}

    def array(self, tensor: str) -> np.ndarray:
        """The global array of ``tensor`` (its ``shape``), assembled from its distinct
        shards, in the images' dtype: what ``tpulayout gather`` writes for it."""
        _, t = self._tensor(tensor)
        out: Optional[np.ndarray] = None
        for s in t["shards"]:
            part = self._read(s, t)
            if out is None:
                out = np.empty(t["shape"], dtype=part.dtype)
            out[tuple(slice(a, b) for a, b in s["ranges"])] = part
        if out is None:  # no shards: an empty array
            out = np.empty(t["shape"], dtype=np.uint8)
        return out

    def close(self) -> None:
        """Nothing to release: images are read as they are asked for (kept so that
        code written when a bucket's images were copied still runs)."""

    def __enter__(self) -> "Sharded":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        m = self.manifest["mesh"]
        mesh = ",".join(f"{a}={n}" for a, n in zip(m["axes"], m["sizes"]))
        return f"<tpulayout.Sharded {self.path}: {len(self._tensors)} tensors on mesh {mesh}>"
