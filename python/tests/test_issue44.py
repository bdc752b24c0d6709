"""Issue 44's odd inputs in Python: NUL in text, process=(bool, …), JSON words."""

import numpy as np
import pytest

import tpulayout as tl


@pytest.mark.parametrize("call", [
    lambda: tl.parse("f32[8,128]{1,0}\x00junk"),
    lambda: tl.to_device(np.zeros((8, 128), np.float32), "f32[8,128]{1,0:T(8,128)}\x00junk"),
    lambda: tl.relayout(bytes(4096), "f32[8,128]{1,0:T(8,128)}\x00x", "f32[8,128]{1,0}"),
])
def test_layout_with_nul_is_refused(call):
    # A C string ends at its NUL: the text after it was silently dropped.
    with pytest.raises(tl.LayoutError, match="holds a NUL character at position") as e:
        call()
    assert e.value.position in (15, 24)


def test_gen_with_nul_is_refused():
    with pytest.raises(tl.InputError, match=r"gen 'v5e\\x00x' holds a NUL character at position 3"):
        tl.default_layout((8, 128), "f32", "v5e\x00x")
