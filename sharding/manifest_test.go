package sharding

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// mergedManifest merges partials and returns the directory and its manifest.
func mergedManifest(t *testing.T) (string, *manifest.Manifest) {
	t.Helper()
	dir := partials(t)
	if _, err := Merge(dir); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// rewrite writes m as dir's manifest.
func rewrite(t *testing.T, dir string, m *manifest.Manifest) {
	t.Helper()
	js, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), js, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A manifest that lists a tensor twice is refused, naming it, by every reader (issue
// 44.10: verify passed it).
func TestManifestTensorTwice(t *testing.T) {
	dir, m := mergedManifest(t)
	m.Tensors = append(m.Tensors, m.Tensors[0])
	rewrite(t, dir, m)
	want := "tensor \"" + m.Tensors[0].Name + "\" is listed twice"
	if _, err := ReadManifest(filepath.Join(dir, manifest.FileName)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadManifest: %v, want an error saying %q", err, want)
	}
	ckpt := filepath.Join(fixtureDir, "mesh2d_repl_f32.safetensors")
	if _, err := Verify(dir, ckpt); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Verify: %v, want an error saying %q", err, want)
	}
}

// copyTree copies the regular files of the tree src into dst.
func copyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	for rel, data := range readTree(tb, src) {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// FuzzManifestGather: any manifest.json beside real images makes Gather write the
// arrays or fail with an error, never panic or allocate what the files on disk do not
// back; what ParseManifest takes, Marshal prints and ParseManifest takes again.
func FuzzManifestGather(f *testing.F) {
	dir := partials(f)
	if _, err := Merge(dir); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"format":"tpulayout-sharded-1","checksum":"sha256","mesh":{"axes":["d"],"sizes":[1048576]},"devices":[],"tensors":[]}`))
	f.Add([]byte(`{"format":"tpulayout-sharded-1","checksum":"crc32c","mesh":{"axes":["d"],"sizes":[2]},"devices":[],"tensors":[]}`))
	// A manifest of before crc32c, naming sha256: the images beside it are the same.
	if old, err := os.ReadFile(filepath.Join(fixtureDir, "v1-sha256", "whole", manifest.FileName)); err == nil {
		f.Add(old)
		f.Add(bytes.Replace(old, []byte(`"checksum": "sha256"`), []byte(`"checksum": "crc32c"`), 1))
	}
	out := filepath.Join(f.TempDir(), "out.safetensors")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Parse(data)
		if err != nil {
			return
		}
		js, err := m.Marshal()
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if _, err := manifest.Parse(js); err != nil {
			t.Fatalf("a parsed manifest, printed, does not parse: %v\n%s", err, js)
		}
		if err := os.WriteFile(filepath.Join(dir, manifest.FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		Gather(dir, out)
	})
}

// FuzzMergeInput: any first partial manifest beside a real second one and the images
// makes Merge write manifest.json or fail with an error, never panic; a merge that
// succeeds leaves a manifest that ParseManifest takes.
func FuzzMergeInput(f *testing.F) {
	base := partials(f)
	seed, err := os.ReadFile(filepath.Join(base, manifest.PartialName(0, 2)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"format":"tpulayout-sharded-1","checksum":"sha256","process":"0/2","mesh":{"axes":["d"],"sizes":[4]},"devices":[{"id":0}],"tensors":[]}`))
	// Process 0's of a sha256 conversion beside process 1's of a crc32c one.
	if old, err := os.ReadFile(filepath.Join(fixtureDir, "v1-sha256", "partial", manifest.PartialName(0, 2))); err == nil {
		f.Add(old)
	}
	tmp := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		dir, err := os.MkdirTemp(tmp, "m")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		copyTree(t, base, dir)
		if err := os.WriteFile(filepath.Join(dir, manifest.PartialName(0, 2)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Merge(dir); err != nil {
			return
		}
		if _, err := ReadManifest(filepath.Join(dir, manifest.FileName)); err != nil {
			t.Fatalf("Merge wrote a manifest that does not read back: %v", err)
		}
	})
}

// TestMarshalOneLineObjects: devices and source files print one a line, and the
// printed manifest parses back to the same one.
func TestMarshalOneLineObjects(t *testing.T) {
	dir := partials(t)
	m, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	js, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), "\n    {\"id\": 0, \"coords\": [0,0], \"files\": [") {
		t.Errorf("a device is not on one line:\n%s", js)
	}
	back, err := manifest.Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	js2, _ := back.Marshal()
	if string(js2) != string(js) {
		t.Errorf("the manifest does not print back the same:\n%s\n%s", js, js2)
	}
}

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
