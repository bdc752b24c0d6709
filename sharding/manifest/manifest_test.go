package manifest

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// Parse refuses what a manifest may not say, with a *FormatError naming the tensor
// where there is one.
func TestParseStrict(t *testing.T) {
	good, err := os.ReadFile("testdata/merged.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(good); err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []byte { return bytes.Replace(good, []byte(old), []byte(new), 1) }
	for _, c := range []struct {
		name   string
		text   []byte
		want   string
		tensor string
	}{
		{"unknown key", edit(`"format"`, `"formats"`), `not a valid manifest: unknown key "formats"`, ""},
		{"key twice", edit(`"to": "f32",`, `"to": "f32", "to": "bf16",`), `key "to" is given twice`, ""},
		{"format", edit(`tpulayout-sharded-1`, `tpulayout-sharded-2`), `format "tpulayout-sharded-2", want "tpulayout-sharded-1"`, ""},
		{"checksum", edit(`"checksum": "crc32c"`, `"checksum": "md5"`), `checksum "md5", want "crc32c" or "sha256"`, ""},
		{"other sum", edit(`"crc32c": "c0817e2d"`, `"sha256": "c0817e2d"`), `shard x/0_0.bin has sha256, the manifest's checksum is crc32c`, "x"},
		{"no sum", edit(`,
          "crc32c": "c0817e2d"`, ``), `shard x/0_0.bin has no "crc32c" checksum`, "x"},
		{"short sum", edit(`"crc32c": "c0817e2d"`, `"crc32c": "c0817e2"`), `crc32c "c0817e2" is not 8 lowercase hex digits`, "x"},
		{"two sums", edit(`"crc32c": "c0817e2d"`, `"crc32c": "c0817e2d", "sha256": "ab"`), `has both sha256 and crc32c`, "x"},
		{"mesh", edit(`"devices": [0,1,2,3]`, `"devices": [0,1,2,2]`), `mesh: sharding: device id 2 is given twice`, ""},
		{"device runs", edit(`"devices": [0,1,2,3]`, `"devices": "3-1"`), `device list "3-1": run 1, "3-1", does not increase`, ""},
	} {
		_, err := Parse(c.text)
		var fe *FormatError
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		} else if errors.As(err, &fe) && fe.Tensor != c.tensor {
			t.Errorf("%s: tensor %q, want %q", c.name, fe.Tensor, c.tensor)
		}
	}
	if _, err := Read(strings.NewReader(string(good))); err != nil {
		t.Errorf("Read: %v", err)
	}
}

// A tensor listed twice is refused; a large mesh's manifest leaves the device table
// out and Parse rebuilds it, listing only the devices that hold a shard.
func TestParseDeviceTable(t *testing.T) {
	m := &Manifest{Format: Format, Checksum: CRC32C, Tensors: []Tensor{{Name: "w", Shards: []Shard{{File: "w/0.bin", CRC32C: "00000000", Devices: DeviceIDs{0, 5}}}}}}
	for i := range 100 {
		m.Mesh.Devices = append(m.Mesh.Devices, i)
	}
	m.Mesh.Axes, m.Mesh.Sizes = []string{"x"}, []int{100}
	js, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(js, []byte(`"coords"`)) || !bytes.Contains(js, []byte(`"devices": "0-99"`)) {
		t.Errorf("large mesh's manifest:\n%s", js)
	}
	back, err := Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Devices) != 2 || back.Devices[1].ID != 5 || back.Devices[1].Files[0] != "w/0.bin" {
		t.Errorf("device table %+v", back.Devices)
	}
	m.Tensors[0].Shards[0].Devices = DeviceIDs{0, 100}
	js, _ = m.Marshal()
	if _, err := Parse(js); err == nil || !strings.Contains(err.Error(), "lists device 100, which the mesh does not have") {
		t.Errorf("Parse: %v", err)
	}
	m.Tensors = append(m.Tensors, m.Tensors[0])
	js, _ = m.Marshal()
	var fe *FormatError
	if _, err := Parse(js); !errors.As(err, &fe) || fe.Tensor != "w" || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("Parse: %v", err)
	}
}

func TestChecksums(t *testing.T) {
	for _, c := range []struct{ alg, in, want string }{
		{CRC32C, "", "00000000"},
		{CRC32C, string(make([]byte, 32)), "8a9136aa"},
		{SHA256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	} {
		got, err := ChecksumOf(c.alg, []byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("%s(%q) = %s, %v; want %s", c.alg, c.in, got, err, c.want)
		}
		a, _ := ChecksumNamed(c.alg)
		var s Shard
		s.SetSum(a, got)
		if name, sum := s.Checksum(); name != c.alg || sum != got {
			t.Errorf("shard's checksum %s %s", name, sum)
		}
		h := s.NewHash()
		h.Write([]byte(c.in + "x"))
		if s.SumDiffers(h) == "" {
			t.Errorf("%s: other bytes match", c.alg)
		}
		var se *SumError
		if !errors.As(s.Mismatch(), &se) || se.Checksum != c.alg {
			t.Errorf("Mismatch: %v", s.Mismatch())
		}
	}
	if _, err := ChecksumOf("md5", nil); err == nil {
		t.Error("md5 taken")
	}
	if h := NewCRC32C(); h.Size() != 4 {
		t.Errorf("CRC-32C of %d bytes", h.Size())
	}
}

func TestPlacementReport(t *testing.T) {
	mesh, _ := placement.ParseMesh("data=2,model=2", []int{0, 1, 3, 2})
	spec, _ := placement.ParseSpec(`P(None, "model")`)
	pl, err := placement.Place(mesh, spec, []int64{8, 6})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, name := range []string{"w", ""} {
		if err := NewPlacementReport(name, layout.F32, pl).WriteText(&b); err != nil {
			t.Fatal(err)
		}
	}
	pl, _ = placement.Place(mesh, placement.Spec{}, nil)
	NewPlacementReport("s", layout.F32, pl).WriteText(&b)
	want := `"w" f32[8,6], spec P(None, "model"), mesh data=2,model=2 (4 devices): 2 shards of [8,3], each on 2 devices
index  ranges       devices
[0,0]  [0,8)×[0,3)  0,3
[0,1]  [0,8)×[3,6)  1-2
f32[8,6], spec P(None, "model"), mesh data=2,model=2 (4 devices): 2 shards of [8,3], each on 2 devices
index  ranges       devices
[0,0]  [0,8)×[0,3)  0,3
[0,1]  [0,8)×[3,6)  1-2
"s" f32[], spec P(), mesh data=2,model=2 (4 devices): 1 shard of [], each on 4 devices
index  ranges  devices
[]     -       0-3
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestShardFile(t *testing.T) {
	for _, c := range []struct {
		index []int
		want  string
	}{{nil, "w/shard.bin"}, {[]int{0}, "w/0.bin"}, {[]int{1, 12}, "w/1_12.bin"}} {
		if got := ShardFile("w", c.index); got != c.want {
			t.Errorf("ShardFile(%v) = %s, want %s", c.index, got, c.want)
		}
	}
	for _, c := range []struct {
		d  string
		ok bool
	}{{"w", true}, {"", false}, {".tmp", false}, {"a/b", false}, {"manifest.x", false}} {
		if ValidDirName(c.d) != c.ok {
			t.Errorf("ValidDirName(%q) = %v", c.d, !c.ok)
		}
	}
}
