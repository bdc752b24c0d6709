package sharding

import (
	"context"
	"hash"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/store"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// sinkCase is a sink under test and how to read back what it wrote.
type sinkCase struct {
	name  string
	whole bool // a failed write may leave its file: the output is discarded whole
	open  func(t *testing.T) (sink, func(rel string) ([]byte, error))
}

// sinkCases are a directory written whole and shared, and a bucket prefix of each
// test server (the fakes always).
func sinkCases(t *testing.T) []sinkCase {
	dirCase := func(whole bool) func(t *testing.T) (sink, func(string) ([]byte, error)) {
		return func(t *testing.T) (sink, func(string) ([]byte, error)) {
			dir := t.TempDir()
			return newDirSink(dir, whole, &jobOptions{}), func(rel string) ([]byte, error) {
				return os.ReadFile(filepath.Join(dir, rel))
			}
		}
	}
	cs := []sinkCase{{"dir-whole", true, dirCase(true)}, {"dir-shared", false, dirCase(false)}}
	for _, srv := range storetest.All(t) {
		cs = append(cs, sinkCase{srv.Name(), false, func(t *testing.T) (sink, func(string) ([]byte, error)) {
			ctx := context.Background()
			b, _ := openURL(t, serverURL(t, srv, "out/"))
			st, err := newStaging()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.close)
			s := &bucketSink{ctx: ctx, b: b, prefix: "out/", fp: map[string]string{"t/a.bin": "fa", "t/b.bin": "fb"},
				found: map[string]store.Attrs{}, opt: &jobOptions{}, sum: crc32cSum(t), stage: st}
			return s, func(rel string) ([]byte, error) { return b.ReadAll(ctx, "out/"+rel) }
		}})
	}
	return cs
}

// TestSinks: every sink writes the files it is given, several at once, with the
// bytes write gives each, under their names relative to the output; a failed write
// leaves no file (but in a directory discarded whole on failure); present knows nothing of files from no earlier run.
func TestSinks(t *testing.T) {
	for _, c := range sinkCases(t) {
		t.Run(c.name, func(t *testing.T) {
			s, read := c.open(t)
			defer s.flush()
			if err := s.prepare("t"); err != nil {
				t.Fatal(err)
			}
			files := []string{"t/a.bin", "t/b.bin"}
			if sums, err := s.present(files); sums != nil || err != nil {
				t.Fatalf("present before any write: %v, %v", sums, err)
			}
			hs := []hash.Hash{manifest.NewCRC32C(), manifest.NewCRC32C()}
			err := s.put(files, hs, func(ws []io.Writer) error {
				for i, w := range ws {
					b := []byte(files[i] + " bytes")
					hs[i].Write(b)
					if _, err := w.Write(b); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			failed := s.put([]string{"t/c.bin"}, nil, func([]io.Writer) error { return io.ErrUnexpectedEOF })
			if failed != io.ErrUnexpectedEOF {
				t.Errorf("a failed write: %v, want its error", failed)
			}
			if err := s.prepare(""); err != nil {
				t.Fatal(err)
			}
			if err := s.put([]string{manifest.FileName}, nil, func(ws []io.Writer) error {
				_, err := ws[0].Write([]byte("{}"))
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if err := s.flush(); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if got, err := read(f); err != nil || string(got) != f+" bytes" {
					t.Errorf("%s: %q, %v", f, got, err)
				}
			}
			if got, err := read(manifest.FileName); err != nil || string(got) != "{}" {
				t.Errorf("%s: %q, %v", manifest.FileName, got, err)
			}
			if _, err := read("t/c.bin"); err == nil && !c.whole {
				t.Error("a failed write left its file")
			}
		})
	}
}

func crc32cSum(t *testing.T) manifest.Checksum {
	c, err := manifest.ChecksumNamed(manifest.CRC32C)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
