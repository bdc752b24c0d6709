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


@pytest.mark.parametrize("process", [(True, 2), (1.0, 2), ("1", 2), (1, 2.5), (np.bool_(True), 2), "12", 3])
def test_process_not_ints_is_type_error(tmp_path, process):
    # int() took True as process 1, 1.9 as 1 and "1" as 1.
    with pytest.raises(TypeError, match="process="):
        tl.shard(tmp_path / "none.safetensors", tmp_path / "out", mesh="x=2", spec="P()", to="tpu:v5e",
                 process=process)
    assert not (tmp_path / "out").exists()


def test_devices_not_ints_is_type_error(tmp_path):
    with pytest.raises(TypeError, match="device id True is a bool"):
        tl.shard(tmp_path / "none.safetensors", tmp_path / "out", mesh="x=2", spec="P()", to="tpu:v5e",
                 devices=[0, True])


def test_process_ints_are_taken(tmp_path):
    # np.int64 is an int here; the error is about the missing checkpoint, not the types.
    with pytest.raises(tl.InputError, match="none.safetensors"):
        tl.shard(tmp_path / "none.safetensors", tmp_path / "out", mesh="x=2", spec="P()", to="tpu:v5e",
                 process=(np.int64(1), 2), devices=[np.int32(0), 1])


def test_wrong_type_errors_name_the_argument_in_plain_words(tmp_path):
    # They said "json: cannot unmarshal number into Go struct field reportRequest.tensor
    # of type string".
    with pytest.raises(tl.InputError) as e:
        tl.shard(tmp_path / "none.safetensors", tmp_path / "out", mesh="x=2", spec="P()", to="tpu:v5e", tensor=5)
    msg = str(e.value)
    assert "tensor: want a str, got a number" in msg and "Go " not in msg and "unmarshal" not in msg, msg
