package sharding

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

func TestChecksumVectors(t *testing.T) {
	for _, c := range []struct{ alg, in, want string }{
		{manifest.CRC32C, "123456789", "e3069283"}, // the CRC-32C check value (RFC 3720, B.4)
		{manifest.CRC32C, "", "00000000"},
		{manifest.CRC32C, string(make([]byte, 32)), "8a9136aa"}, // RFC 3720 B.4: 32 bytes of zeros
		{manifest.SHA256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	} {
		s, err := manifest.ChecksumNamed(c.alg)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Of([]byte(c.in)); got != c.want || !s.Valid(got) {
			t.Errorf("%s(%q) = %s, want %s", c.alg, c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "md5", "CRC32C"} {
		if _, err := manifest.ChecksumNamed(bad); err == nil {
			t.Errorf("%q taken", bad)
		}
	}
}

// convertSummed converts the 2x2-mesh fixture with the checksum alg into a new
// directory.
func convertSummed(t *testing.T, alg string, processes int) (string, string) {
	t.Helper()
	ckpt, o := openReplicated(t)
	dir := filepath.Join(t.TempDir(), "out")
	for i := range processes {
		o.Process, o.Processes, o.Checksum = i, processes, alg
		if _, err := convertDir(ckpt, dir, o); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(fixtureDir, "mesh2d_repl_f32.safetensors")
}

// TestChecksumKinds: a conversion with either checksum writes it in every shard under
// its name, its manifest round-trips, verifies, merges and gathers to the same bytes,
// and a changed byte is found by verify, merge and gather.
func TestChecksumKinds(t *testing.T) {
	var gathered [][]byte
	for _, alg := range []string{manifest.CRC32C, manifest.SHA256} {
		one, src := convertSummed(t, alg, 1)
		two, _ := convertSummed(t, alg, 2)
		if _, err := Merge(two); err != nil {
			t.Fatalf("%s: merge: %v", alg, err)
		}
		m, err := ReadManifest(filepath.Join(one, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := manifest.ChecksumNamed(alg)
		if m.Checksum != alg {
			t.Errorf("%s: the manifest's checksum is %q", alg, m.Checksum)
		}
		for _, s := range m.Tensors[0].Shards {
			name, sum := s.Checksum()
			img, _ := os.ReadFile(filepath.Join(one, s.File))
			if name != alg || sum != c.Of(img) {
				t.Errorf("%s: shard %s has %s %s, its file's is %s", alg, s.File, name, sum, c.Of(img))
			}
		}
		js, _ := m.Marshal()
		if b, _ := os.ReadFile(filepath.Join(one, manifest.FileName)); !bytes.Equal(js, b) {
			t.Errorf("%s: the manifest does not round-trip", alg)
		}
		if b, _ := os.ReadFile(filepath.Join(two, manifest.FileName)); !bytes.Equal(js, b) {
			t.Errorf("%s: the merged manifest differs from one process's", alg)
		}
		if r, err := Verify(one, src); err != nil || len(r.Problems) != 0 {
			t.Errorf("%s: verify: %v %v", alg, err, r)
		}
		out := filepath.Join(t.TempDir(), "g.safetensors")
		if _, err := Gather(one, out); err != nil {
			t.Fatalf("%s: gather: %v", alg, err)
		}
		g, _ := os.ReadFile(out)
		gathered = append(gathered, g)

		// One changed byte: each of verify, merge and gather names the checksum.
		f := filepath.Join(one, m.Tensors[0].Shards[1].File)
		img, _ := os.ReadFile(f)
		img[100] ^= 0x04
		os.WriteFile(f, img, 0o644)
		if r, err := Verify(one, src); err != nil || len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Msg, alg+" ") {
			t.Errorf("%s: verify of a changed byte: %v %v", alg, err, r.Problems)
		}
		if _, err := Gather(one, out); err == nil || !strings.Contains(err.Error(), "does not match its "+alg) {
			t.Errorf("%s: gather of a changed byte: %v", alg, err)
		}
		if msg := checkShardFile(f, m.Tensors[0].Shards[1], true); !strings.HasPrefix(msg, "has "+alg+" ") {
			t.Errorf("%s: merge's check of a changed byte: %q", alg, msg)
		}
	}
	if !bytes.Equal(gathered[0], gathered[1]) {
		t.Error("the conversions with crc32c and sha256 gather to different bytes")
	}
}

// TestParseManifestChecksums: a shard's checksum must be one well-formed sum of the
// algorithm its manifest names.
func TestParseManifestChecksums(t *testing.T) {
	dir, _ := convertSummed(t, manifest.CRC32C, 1)
	good, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := manifest.Parse(good)
	_, sum := m.Tensors[0].Shards[0].Checksum()
	line := `"crc32c": "` + sum + `"`
	for _, c := range []struct{ old, new, want string }{
		{`"checksum": "crc32c"`, `"checksum": "sha256"`, `shard x/0_0.bin has crc32c, the manifest's checksum is sha256`},
		{`"checksum": "crc32c"`, `"checksum": "md5"`, `checksum "md5", want "crc32c" or "sha256"`},
		{`"checksum": "crc32c"`, `"checksum": ""`, `checksum "", want`},
		{line, `"sha256": "` + strings.Repeat("ab", 32) + `"`, `shard x/0_0.bin has sha256, the manifest's checksum is crc32c`},
		{line, line + `, "sha256": "` + strings.Repeat("ab", 32) + `"`, `has both sha256 and crc32c`},
		{line, `"crc32c": "` + strings.ToUpper(sum) + `"`, `is not 8 lowercase hex digits`},
		{line, `"crc32c": "` + sum + `0"`, `is not 8 lowercase hex digits`},
		{line, `"crc32c": ""`, `has no "crc32c" checksum`},
	} {
		text := strings.Replace(string(good), c.old, c.new, 1)
		if text == string(good) {
			t.Fatalf("%q is not in the manifest", c.old)
		}
		if _, err := manifest.Parse([]byte(text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: %v, want %q", c.old, c.new, err, c.want)
		}
	}
}

// TestOldSHA256Outdirs: the output of a version that wrote only sha256 manifests
// (testdata/sharding/v1-sha256) still verifies, merges and gathers, to the bytes of a
// conversion today.
func TestOldSHA256Outdirs(t *testing.T) {
	src := filepath.Join(fixtureDir, "mesh2d_repl_f32.safetensors")
	old := filepath.Join(fixtureDir, "v1-sha256")
	if r, err := Verify(filepath.Join(old, "whole"), src); err != nil || len(r.Problems) != 0 || r.Manifest.Checksum != manifest.SHA256 {
		t.Fatalf("verify of the old output: %v %+v", err, r)
	}
	part := filepath.Join(t.TempDir(), "partial")
	if err := os.CopyFS(part, os.DirFS(filepath.Join(old, "partial"))); err != nil {
		t.Fatal(err)
	}
	m, err := Merge(part)
	if err != nil {
		t.Fatalf("merge of the old partial manifests: %v", err)
	}
	whole, _ := os.ReadFile(filepath.Join(old, "whole", manifest.FileName))
	if js, _ := m.Marshal(); !bytes.Equal(js, whole) {
		t.Error("the old partial manifests merge to other than the old whole one")
	}
	now, _ := convertSummed(t, "", 1)
	var g [2][]byte
	for i, d := range []string{filepath.Join(old, "whole"), now} {
		out := filepath.Join(t.TempDir(), "g.safetensors")
		if _, err := Gather(d, out); err != nil {
			t.Fatal(err)
		}
		g[i], _ = os.ReadFile(out)
	}
	if !bytes.Equal(g[0], g[1]) {
		t.Error("the old output gathers to other bytes than today's")
	}
}
