package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/store"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// fastRetry makes the store's retries quick for the rest of the test: the faults
// injected here fail at once or stall, and waiting seconds for each proves nothing.
func fastRetry(t *testing.T) {
	old := store.DefaultRetry
	store.DefaultRetry = store.Retry{Tries: 6, First: time.Millisecond, Max: 10 * time.Millisecond, Timeout: time.Second}
	t.Cleanup(func() { store.DefaultRetry = old })
}

// uploadCheckpoint puts the files of shardCheckpoint's directory into a new bucket
// of s under ckpt/ and returns the prefix's URL.
func uploadCheckpoint(t *testing.T, s storetest.Server, dir string) string {
	t.Helper()
	prefix := s.Scheme + "://" + s.NewBucket(t) + "/ckpt/"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		testfiles.PutObject(t, prefix+e.Name(), readFile(t, filepath.Join(dir, e.Name())))
	}
	return prefix
}

// eachStoreServer runs f as a subtest for each server of storetest.Servers, with its
// scheme's URLs pointed at it.
func eachStoreServer(t *testing.T, f func(t *testing.T, s storetest.Server)) {
	for _, s := range storetest.Servers(t) {
		t.Run(s.Scheme, func(t *testing.T) {
			s.Point(t, s.Endpoint)
			f(t, s)
		})
	}
}

// sameTree fails unless directories a and b hold the same files, byte for byte, but
// for the source each manifest names.
func sameTree(t *testing.T, a, b, srcA, srcB string) {
	t.Helper()
	fa, fb := treeFiles(t, a), treeFiles(t, b)
	if len(fa) != len(fb) {
		t.Errorf("%s has %d files, %s %d", a, len(fa), b, len(fb))
	}
	for name, data := range fa {
		other := fb[name]
		if strings.HasPrefix(name, "manifest") {
			data = bytes.ReplaceAll(data, []byte(srcA), []byte("SOURCE"))
			other = bytes.ReplaceAll(other, []byte(srcB), []byte("SOURCE"))
		}
		if !bytes.Equal(data, other) {
			t.Errorf("%s differs between %s and %s", name, a, b)
		}
	}
}

// bucketArgs are the conversion flags of the bucket tests for the checkpoint in dir
// (see shardCheckpoint).
func bucketArgs(dir string) []string {
	return []string{"--all", "--mesh", "data=2,model=4", "--rules", filepath.Join(dir, "rules.json"), "--to", "tpu:v5e", "--dtype", "bf16"}
}

// convertedLocally converts dir's model.safetensors with bucketArgs into a new local
// directory, what the bucket tests compare with, and returns both paths.
func convertedLocally(t *testing.T, dir string) (in, local string) {
	t.Helper()
	in = filepath.Join(dir, "model.safetensors")
	local = filepath.Join(t.TempDir(), "local")
	mustRun(t, append([]string{"convert", in, local}, bucketArgs(dir)...)...)
	return in, local
}

// convertProcesses converts in to out with args as the processes of a conversion in
// four, one after the other: those numbered, or all four.
func convertProcesses(t *testing.T, in, out string, args []string, numbers ...int) {
	t.Helper()
	if numbers == nil {
		numbers = []int{0, 1, 2, 3}
	}
	for _, i := range numbers {
		mustRun(t, append([]string{"convert", in, out, "--process", fmt.Sprintf("%d/4", i)}, args...)...)
	}
}

// firstImage returns the attributes, metadata included, of the first image (.bin)
// under the prefix url.
func firstImage(t *testing.T, prefix string) store.Attrs {
	t.Helper()
	ctx := context.Background()
	b, key, _ := store.Open(ctx, prefix)
	as, err := b.List(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		if strings.HasSuffix(a.Key, ".bin") {
			img, err := b.Stat(ctx, a.Key)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatalf("no image under %s", prefix)
	return store.Attrs{}
}

// gatheredLocally makes shardCheckpoint's directory, converts its checkpoint in into
// local (convertedLocally) and gathers that into want, what a conversion in a bucket
// must gather to.
func gatheredLocally(t *testing.T) (dir, in, local, want string) {
	t.Helper()
	dir = shardCheckpoint(t)
	in, local = convertedLocally(t, dir)
	want = filepath.Join(t.TempDir(), "want.safetensors")
	mustRun(t, "gather", local, want)
	return dir, in, local, want
}

// gatherSame gathers the conversion at out and fails unless it gives want's bytes.
func gatherSame(t *testing.T, out, want string) {
	t.Helper()
	got := filepath.Join(t.TempDir(), "got.safetensors")
	mustRun(t, "gather", out, got)
	if !bytes.Equal(readFile(t, got), readFile(t, want)) {
		t.Error("gather from the bucket differs from gather from the directory")
	}
}

// eachMmapThreshold runs f with images read whole, and then with those of at least
// buffer.MmapThreshold bytes (threshold 1: all) read band by band.
func eachMmapThreshold(f func(threshold int64)) {
	old := buffer.MmapThreshold
	defer func() { buffer.MmapThreshold = old }()
	for _, threshold := range []int64{old, 1} {
		buffer.MmapThreshold = threshold
		f(threshold)
	}
}

// TestStoreConvertFromBucket converts a checkpoint read from a bucket (one file, and
// an index with its two files), as one process (and the file as four merged),
// directly and
// through a proxy that fails each range's first three requests: every output
// equals the conversion of the local files.
func TestStoreConvertFromBucket(t *testing.T) {
	setShardBand(t, 16<<10) // several bands a shard, so many ranged reads
	fastRetry(t)
	dir := shardCheckpoint(t)
	eachStoreServer(t, func(t *testing.T, s storetest.Server) {
		prefix := uploadCheckpoint(t, s, dir)
		for _, ckpt := range []string{"model.safetensors", "model.safetensors.index.json"} {
			common := bucketArgs(dir)
			local := filepath.Join(t.TempDir(), "local")
			mustRun(t, append([]string{"convert", filepath.Join(dir, ckpt), local}, common...)...)

			remote := filepath.Join(t.TempDir(), "remote")
			mustRun(t, append([]string{"convert", prefix + ckpt, remote}, common...)...)
			sameTree(t, local, remote, filepath.Join(dir, ckpt), prefix+ckpt)

			if ckpt != "model.safetensors" {
				continue
			}
			four := filepath.Join(t.TempDir(), "four")
			for i := range 4 {
				mustRun(t, append([]string{"convert", prefix + ckpt, four, "--process", string(rune('0'+i)) + "/4"}, common...)...)
			}
			mustRun(t, "manifest", "merge", four)
			sameTree(t, local, four, filepath.Join(dir, ckpt), prefix+ckpt)
		}
		setShardBand(t, 64<<10)
		// Counted by the range's end: a drop's resumed read keeps it, so each range
		// meets each fault whatever part of the dropped body arrived.
		p, proxy := storetest.NewProxyRule(t, s.Endpoint, storetest.ByEnd(func(n int) storetest.Fault { return storetest.Fault((n + 1) % 4) }))
		s.Point(t, proxy)
		local := filepath.Join(t.TempDir(), "local")
		common := []string{"--all", "--mesh", "data=2,model=4", "--rules", filepath.Join(dir, "rules.json"), "--to", "tpu:v5e"}
		mustRun(t, append([]string{"convert", filepath.Join(dir, "model.safetensors"), local}, common...)...)
		faulty := filepath.Join(t.TempDir(), "faulty")
		mustRun(t, append([]string{"convert", prefix + "model.safetensors", faulty}, common...)...)
		sameTree(t, local, faulty, filepath.Join(dir, "model.safetensors"), prefix+"model.safetensors")
		if p.Seen(storetest.Status) == 0 || p.Seen(storetest.Drop) == 0 || p.Seen(storetest.Stall) == 0 {
			t.Errorf("faults injected: %d 503s, %d drops, %d stalls; want each kind",
				p.Seen(storetest.Status), p.Seen(storetest.Drop), p.Seen(storetest.Stall))
		}
	})
}

// TestStoreBadInput: a missing object, no credentials, a wrong endpoint: exit 2,
// one line naming the URL, no output directory (a missing bucket is a scenario of
// testdata/store).
func TestStoreBadInput(t *testing.T) {
	fastRetry(t)
	dir := shardCheckpoint(t)
	eachStoreServer(t, func(t *testing.T, s storetest.Server) {
		prefix := uploadCheckpoint(t, s, dir)
		out := filepath.Join(t.TempDir(), "out")
		args := func(in string) []string {
			return []string{"convert", in, out, "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e"}
		}
		missing := prefix + "nothing.safetensors" // a missing bucket: testdata/store
		wantUsageError(t, args(missing), missing, ": object does not exist")
		// An index naming a file that is not there.
		ctx := context.Background()
		b, _, _ := store.Open(ctx, prefix)
		idx := `{"weight_map": {"embed": "gone.safetensors"}}`
		if err := b.Put(ctx, "ckpt/bad.index.json", strings.NewReader(idx), int64(len(idx)), nil); err != nil {
			t.Fatal(err)
		}
		wantUsageError(t, args(prefix+"bad.index.json"), prefix+"gone.safetensors", "does not exist")
		if s.Scheme == "s3" {
			// No credentials anywhere in the chain.
			t.Setenv("AWS_ACCESS_KEY_ID", "")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "")
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "none"))
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			wantUsageError(t, args(prefix+"model.safetensors"), prefix+"model.safetensors", "no S3 credentials were found")
		}
		// Nothing listens at the endpoint: connections refused until the last try.
		s.Point(t, "http://127.0.0.1:1")
		wantUsageError(t, args(prefix+"model.safetensors"), prefix+"model.safetensors", "gave up after")
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s was created", out)
		}
	})
}

// download copies every object under the URL prefix into a new local directory,
// checking each shard image against the checksum (SHA-256 or CRC-32C) in its metadata.
func download(t *testing.T, prefix string) string {
	t.Helper()
	ctx := context.Background()
	b, key, err := store.Open(ctx, prefix)
	if err != nil {
		t.Fatal(err)
	}
	as, err := b.List(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, a := range as {
		data, err := b.ReadAll(ctx, a.Key)
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(a.Key, key)
		if strings.HasSuffix(rel, ".bin") {
			st, err := b.Stat(ctx, a.Key)
			if err != nil {
				t.Fatal(err)
			}
			if sum, ok := st.Metadata["sha256"]; ok {
				if h := sha256.Sum256(data); sum != hex.EncodeToString(h[:]) {
					t.Errorf("%s: metadata sha256 %q, contents %x", a.Key, sum, h)
				}
			} else if st.Metadata["crc32c"] != crc32cHex(data) {
				t.Errorf("%s: metadata crc32c %q, contents %s", a.Key, st.Metadata["crc32c"], crc32cHex(data))
			}
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		writeText(t, p, string(data))
	}
	return dir
}

// TestStoreConvertToBucket writes OUTDIR to a bucket: as one process, and as four
// merged with manifest merge on the prefix, from a local and from a bucket
// checkpoint: each equals the local conversion. A rerun of a process whose partial
// manifest and one image were lost uploads just those two; a prefix holding another
// object, or a finished conversion, is refused with nothing written.
func TestStoreConvertToBucket(t *testing.T) {
	fastRetry(t)
	setShardBand(t, 64<<10)
	dir := shardCheckpoint(t)
	in, local := convertedLocally(t, dir)
	common := bucketArgs(dir)
	ctx := context.Background()
	eachStoreServer(t, func(t *testing.T, s storetest.Server) {
		ckpts := uploadCheckpoint(t, s, dir)
		root := strings.TrimSuffix(ckpts, "ckpt/")
		b, _, _ := store.Open(ctx, root)

		one := root + "one"
		out := mustRun(t, append([]string{"convert", in, one}, common...)...)
		if !strings.Contains(out, one+"/manifest.json") {
			t.Errorf("convert says %q", out)
		}
		sameTree(t, local, download(t, one), in, in)

		four := root + "four/"
		convertProcesses(t, ckpts+"model.safetensors", four, common)
		out = mustRun(t, "manifest", "merge", four)
		if !strings.Contains(out, root+"four/manifest.json: 5 tensors") {
			t.Errorf("merge says %q", out)
		}
		sameTree(t, local, download(t, four), in, ckpts+"model.safetensors")

		// Merge on a prefix checks the images as on a directory: one replaced by
		// other bytes of the same size, or deleted, after its process finished.
		tampered := root + "tampered/"
		convertProcesses(t, in, tampered, common)
		img := firstImage(t, tampered)
		zeros := make([]byte, img.Size)
		if err := b.Put(ctx, img.Key, bytes.NewReader(zeros), img.Size, nil); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := runCmd(t, "manifest", "merge", tampered); code != 2 || !strings.Contains(errOut, "crc32c") {
			t.Errorf("merge after an image was replaced: exit %d, %q", code, errOut)
		}
		if err := b.Delete(ctx, img.Key); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := runCmd(t, "manifest", "merge", tampered); code != 2 || !strings.Contains(errOut, "is missing") {
			t.Errorf("merge after an image was deleted: exit %d, %q", code, errOut)
		}

		// Process 2 of 4 was killed after all but one image: its partial manifest
		// and one image are missing. The rerun uploads those two only.
		resume := root + "resume/"
		mustRun(t, append([]string{"convert", in, resume, "--process", "2/4"}, common...)...)
		key := func(u string) string { _, k, _ := store.Open(ctx, u); return k }
		if err := b.Delete(ctx, key(resume+"manifest.process-2-of-4.json")); err != nil {
			t.Fatal(err)
		}
		if err := b.Delete(ctx, key(resume+"layers.0.mlp.w1/1_0.bin")); err != nil {
			t.Fatal(err)
		}
		p, proxy := storetest.NewProxy(t, s.Endpoint, func(int) storetest.Fault { return storetest.Pass })
		s.Point(t, proxy)
		mustRun(t, append([]string{"convert", in, resume, "--process", "2/4"}, common...)...)
		s.Point(t, s.Endpoint)
		if up := p.Requests("PUT") + p.Requests("POST"); up != 2 {
			t.Errorf("the rerun made %d uploads, want 2 (the lost image and the partial manifest)", up)
		}
		convertProcesses(t, in, resume, common, 0, 1, 3)
		mustRun(t, "manifest", "merge", resume)
		sameTree(t, local, download(t, resume), in, in)

		// A finished conversion, and a prefix holding someone else's object.
		wantUsageError(t, append([]string{"convert", in, one}, common...), one, "already holds a complete conversion")
		other := root + "other/"
		if err := b.Put(ctx, key(other+"notes.txt"), strings.NewReader("mine"), 4, nil); err != nil {
			t.Fatal(err)
		}
		wantUsageError(t, append([]string{"convert", in, other}, common...), other, "did not write", "notes.txt")
		if as, err := b.List(ctx, key(other)); err != nil || len(as) != 1 {
			t.Errorf("after the refusal %s holds %d objects (%v), want only notes.txt", other, len(as), err)
		}
	})
}

// TestStoreVerifyGatherFromBucket: verify and gather read a conversion from a bucket
// as from its directory; verify names an image made wrong in the bucket, and an
// unfinished prefix is refused naming the manifest.
func TestStoreVerifyGatherFromBucket(t *testing.T) {
	fastRetry(t)
	dir, in, local, want := gatheredLocally(t)
	common := bucketArgs(dir)
	eachStoreServer(t, func(t *testing.T, s storetest.Server) {
		root := strings.TrimSuffix(uploadCheckpoint(t, s, dir), "ckpt/")
		out := root + "images"
		mustRun(t, append([]string{"convert", in, out}, common...)...)
		if v := mustRun(t, "verify", out); !strings.Contains(v, "result: OK") {
			t.Errorf("verify: %q", v)
		}
		gatherSame(t, out, want)
		// An image overwritten with other bytes of its size: verify fails naming it.
		img := readFile(t, filepath.Join(local, "layers.0.mlp.w1", "0_0.bin"))
		img[0] ^= 1
		testfiles.PutObject(t, out+"/layers.0.mlp.w1/0_0.bin", img)
		v, _, code := runCmd(t, "verify", out)
		if code != 1 || !strings.Contains(v, "layers.0.mlp.w1/0_0.bin") {
			t.Errorf("verify of a changed image: exit %d, %q", code, v)
		}
		wantUsageError(t, []string{"verify", root + "nothing"}, root+"nothing/manifest.json", "does not exist")
	})
}

// TestStoreVerifyGatherByRanges: a conversion of a checkpoint in a bucket, written to
// a bucket, is verified against that checkpoint (the manifest's source) and gathered
// with TMPDIR unwritable, so by ranges: no local copy of the images or the
// checkpoint. An image changed in the bucket and a byte of the checkpoint changed
// are both found.
func TestStoreVerifyGatherByRanges(t *testing.T) {
	fastRetry(t)
	dir, in, local, want := gatheredLocally(t)
	common := bucketArgs(dir)
	eachStoreServer(t, func(t *testing.T, s storetest.Server) {
		ckpt := uploadCheckpoint(t, s, dir) + "model.safetensors"
		out := strings.TrimSuffix(ckpt, "ckpt/model.safetensors") + "images"
		mustRun(t, append([]string{"convert", ckpt, out}, common...)...)
		tmp := t.TempDir()
		if err := os.Chmod(tmp, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(tmp, 0o700) })
		t.Setenv("TMPDIR", tmp)
		eachMmapThreshold(func(threshold int64) {
			if v := mustRun(t, "verify", out); !strings.Contains(v, "result: OK") || !strings.Contains(v, ckpt) {
				t.Errorf("verify (images of %d bytes and more by bands): %q", threshold, v)
			}
		})
		gatherSame(t, out, want)
		// One byte of the checkpoint's first tensor changed: verify finds it by
		// comparing the images with the source read by ranges; then an image
		// replaced by one of a byte changed: its checksum differs.
		verifyFails := func(what, want string) {
			eachMmapThreshold(func(threshold int64) {
				v, _, code := runCmd(t, "verify", out)
				if code != 1 || !strings.Contains(v, want) {
					t.Errorf("verify %s (images of %d bytes and more by bands): exit %d, %q", what, threshold, code, v)
				}
			})
		}
		data := readFile(t, in)
		data[len(data)-1] ^= 0x40
		testfiles.PutObject(t, ckpt, data)
		verifyFails("against a changed checkpoint", "differs from the source")
		img := readFile(t, filepath.Join(local, "layers.0.mlp.w1", "0_0.bin"))
		img[len(img)/2] ^= 1
		testfiles.PutObject(t, out+"/layers.0.mlp.w1/0_0.bin", img)
		verifyFails("of a changed image", "layers.0.mlp.w1/0_0.bin: crc32c")
	})
}

// TestStoreLyingMetadata: an image replaced by other bytes of the same size,
// uploaded with the original's metadata (what copying another conversion's object
// carries) and its own CRC-32C, as a conversion uploads: merge refuses it, naming it
// and both checksums, and a rerun of the processes does not take it for its own (it
// uploads it again), after which merge succeeds with the right bytes. Against the
// fake servers (plain go test) and the real ones.
func TestStoreLyingMetadata(t *testing.T) {
	fastRetry(t)
	dir := shardCheckpoint(t)
	in, local := convertedLocally(t, dir)
	ctx := context.Background()
	for _, sum := range []string{"crc32c", "sha256"} {
		common := append(bucketArgs(dir), "--checksum", sum)
		for _, s := range storetest.All(t) {
			t.Run(sum+"/"+s.Name(), func(t *testing.T) {
				s.Point(t, s.Endpoint)
				prefix := s.Scheme + "://" + s.NewBucket(t) + "/liar/"
				b, pk, _ := store.Open(ctx, prefix)
				convertProcesses(t, in, prefix, common)
				img := firstImage(t, prefix)
				other := bytes.Repeat([]byte{0x5a}, int(img.Size))
				crc := crc32.Checksum(other, crc32.MakeTable(crc32.Castagnoli))
				if err := b.PutFileCRC32C(ctx, img.Key, bytes.NewReader(other), img.Size, img.Metadata,
					binary.BigEndian.AppendUint32(nil, crc)); err != nil {
					t.Fatal(err)
				}
				name := strings.TrimPrefix(img.Key, pk)
				_, errOut, code := runCmd(t, "manifest", "merge", prefix)
				if code != 2 || !strings.Contains(errOut, name) || !strings.Contains(errOut, sum) {
					t.Errorf("merge after an image was replaced with its metadata kept: exit %d, %q", code, errOut)
				}
				convertProcesses(t, in, prefix, common)
				mustRun(t, "manifest", "merge", prefix)
				got := download(t, prefix)
				if !bytes.Equal(readFile(t, filepath.Join(got, name)), readFile(t, filepath.Join(local, name))) {
					t.Errorf("after the reruns %s still holds the other bytes", name)
				}
			})
		}
	}
}

// TestStoreSIGKILLLeavesNoStaging: a conversion to a bucket killed with SIGKILL
// while its uploads hang leaves its staged images behind; the next conversion
// removes them (their owner is gone) and, when it ends, its own, so nothing of
// either is left in $TMPDIR.
func TestStoreSIGKILLLeavesNoStaging(t *testing.T) {
	fastRetry(t)
	dir := shardCheckpoint(t)
	in := filepath.Join(dir, "model.safetensors")
	staged := func(tmp string) []string {
		var fs []string
		filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "tpulayout-shard-") {
				fs = append(fs, p)
			}
			return nil
		})
		return fs
	}
	for _, s := range storetest.All(t)[:2] { // the fakes: the point is the local files
		t.Run(s.Name(), func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			var hang atomic.Bool
			hang.Store(true)
			_, proxy := storetest.NewProxyRule(t, s.Endpoint, func(r *http.Request, _ int) storetest.Fault {
				if hang.Load() && (r.Method == http.MethodPut || r.Method == http.MethodPost) {
					return storetest.Silent
				}
				return storetest.Pass
			})
			s.Point(t, proxy)
			out := s.Scheme + "://" + s.NewBucket(t) + "/out/"
			killMidWrite(t, func() bool { return len(staged(tmp)) > 0 }, append([]string{"convert", in, out}, bucketArgs(dir)...)...)
			hang.Store(false)
			mustRun(t, append([]string{"convert", in, out}, bucketArgs(dir)...)...)
			if fs := staged(tmp); len(fs) != 0 {
				t.Errorf("after a killed conversion and a finished one, %d staged images are left, such as %s", len(fs), fs[0])
			}
		})
	}
}

// TestStoreMisbehavingServer converts a checkpoint read through a proxy that
// misbehaves: a server that stalls fails the conversion saying the server sent
// nothing, one that answers with another range fails it naming both ranges, and
// the command itself (main, in a child process) prints a line for each retried try.
func TestStoreMisbehavingServer(t *testing.T) {
	dir := shardCheckpoint(t)
	args := bucketArgs(dir)
	for _, s := range storetest.All(t) {
		t.Run(s.Name(), func(t *testing.T) {
			s.Point(t, s.Endpoint)
			prefix := uploadCheckpoint(t, s, dir)
			through := func(f storetest.Fault) string {
				_, proxy := storetest.NewProxyRule(t, s.Endpoint, func(r *http.Request, n int) storetest.Fault {
					if storetest.IsRange(r) && (f != storetest.Status || n == 0) {
						return f
					}
					return storetest.Pass
				})
				s.Point(t, proxy)
				return filepath.Join(t.TempDir(), "out")
			}
			old := store.DefaultRetry
			defer func() { store.DefaultRetry = old }()
			for _, c := range []struct {
				f     storetest.Fault
				stall time.Duration // short only where every range stalls anyway
				want  []string
			}{
				{storetest.StallHeaders, 200 * time.Millisecond, []string{"gave up after 2 tries: the server sent nothing for 200ms"}},
				{storetest.StallMid, 200 * time.Millisecond, []string{"the server sent nothing for 200ms"}},
				{storetest.WrongRange, 0, []string{"asked for bytes=", "the server answered with Content-Range bytes "}},
			} {
				store.DefaultRetry = store.Retry{Tries: 6, First: time.Millisecond, Max: 10 * time.Millisecond, Stall: c.stall, StallTries: 2}
				start := time.Now()
				_, errOut, code := runCmd(t, append([]string{"convert", prefix + "model.safetensors", through(c.f)}, args...)...)
				for _, w := range c.want {
					if code != 2 || !strings.Contains(errOut, w) {
						t.Errorf("fault %d: exit %d, %q; want it to say %q", c.f, code, errOut, w)
					}
				}
				if d := time.Since(start); d > 30*time.Second {
					t.Errorf("fault %d: failed after %v", c.f, d)
				}
			}
			store.DefaultRetry = old
			cmd := newChild(append([]string{"convert", prefix + "model.safetensors", through(storetest.Status)}, args...)...)
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v; stderr %q", err, cmd.stderr.String())
			}
			if stderr := cmd.stderr.String(); !strings.Contains(stderr, "tpulayout: store: "+prefix+"model.safetensors: bytes ") ||
				!strings.Contains(stderr, "try 1 of 6 failed (HTTP status 503") {
				t.Errorf("a retried read printed %q; want a line naming the object and the failed try", stderr)
			}
		})
	}
}
