"""Python says what the CLI says: every array shape that `tpulayout info --json` accepts,
taken from the layout package's parse tests, the golden files under testdata/ and the
HLO corpus, gives the same facts from tpulayout.info (and parse), and every one it
rejects is rejected here too."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

import tpulayout

ROOT = Path(__file__).resolve().parents[2]

# Array shapes as XLA prints them: a type name, dims, and an optional layout whose
# attributes may hold one level of nested braces (P(shape{…})).
DTYPE = r"(?:pred|bf16|f8e[0-9a-z]+|f4e2m1fn|[suf][0-9]+|c64|c128)"
SHAPE = re.compile(DTYPE + r"\[[0-9,<=? ]*\](?:\{[^{}\n]*?(?:\{[^{}\n]*\}[^{}\n]*?)*\})?")

# Keys of the CLI's JSON: Python's Info has each under the same name (the insight's
# optional ones default to None or empty when the CLI leaves them out).
INFO_KEYS = ("shape", "dtype", "dims", "minor_to_major", "physical_order", "tiles",
             "tail_padding", "levels", "element_bits", "logical_elements", "logical_bytes",
             "footprint_elements", "footprint_bytes", "padding_elements", "padding_fraction",
             "expansion", "generation", "default_layout", "cheapest", "no_tpu_layout",
             "host_row_blocks", "xla_array_size_bytes")
ABSENT = {"tail_padding": 0, "default_layout": None, "cheapest": [], "no_tpu_layout": "",
          "xla_array_size_bytes": 0}


def corpus():
    texts = []
    src = (ROOT / "layout" / "parse_test.go").read_text()
    start = src.index("var accepted")
    texts.append(src[start:src.index("\n}\n", start)])
    texts.append((ROOT / "layout" / "parse_test.go").read_text())
    for base in ("testdata", "cmd/tpulayout/testdata", "hlo/testdata"):
        for p in sorted((ROOT / base).rglob("*")):
            if p.suffix in (".golden", ".json", ".txt", ".hlo", ".md") and p.is_file():
                texts.append(p.read_text(errors="replace"))
    found = {}
    for t in texts:
        for m in SHAPE.finditer(t):
            found.setdefault(m.group(0), None)
    return sorted(found)


def as_json(v):
    """Python values in the JSON form the CLI prints (tuples as lists)."""
    if isinstance(v, tuple):
        return [as_json(x) for x in v]
    return v


def test_corpus_is_large():
    shapes = corpus()
    assert len(shapes) >= 300, len(shapes)
    assert any(":T(*" in s for s in shapes) and any(":D(" in s for s in shapes)


def test_info_parity(cli):
    agreed = rejected = sparse = 0
    for text in corpus():
        r = subprocess.run([cli, "info", "--json", text], capture_output=True, text=True)
        if r.returncode != 0:
            with pytest.raises(tpulayout.TpulayoutError):
                tpulayout.info(text)
            rejected += 1
            continue
        want = json.loads(r.stdout)
        got = tpulayout.info(text)
        if want.get("sparse"):
            assert isinstance(got, tpulayout.SparseInfo), text
            for k, v in want.items():
                assert as_json(getattr(got, k)) == v, (text, k)
            with pytest.raises(tpulayout.TpulayoutError, match="sparse layouts are not supported"):
                tpulayout.parse(text)
            sparse += 1
            continue
        assert set(want) <= set(INFO_KEYS), set(want) - set(INFO_KEYS)
        for k in INFO_KEYS:
            w = want.get(k, ABSENT.get(k))
            g = as_json(getattr(got, k))
            if k == "levels":
                g = [{"name": n, "dims": d} for n, d in g]
            assert g == w, (text, k, g, w)
        s = tpulayout.parse(text)
        assert (str(s), s.footprint_bytes, s.element_bits) == (want["shape"], want["footprint_bytes"], want["element_bits"]), text
        agreed += 1
    assert agreed >= 200 and sparse >= 3, (agreed, rejected, sparse)
