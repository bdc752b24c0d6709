package sharding

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestServerConversionRequests converts a 4 MiB checkpoint from each test server
// through a proxy that counts requests and connections: the source is asked for
// about once per read of maxSpan bytes (its fingerprint taken from those reads, not
// from 257 requests of its own), over about as many connections as reads in flight.
func TestServerConversionRequests(t *testing.T) {
	defer setSpans(256<<10, maxGap, RemoteAheadBytes)()
	dir := t.TempDir()
	in := filepath.Join(dir, "m.safetensors")
	writeRandomCheckpoint(t, in, 9, 10, "f32[512,1024]", "f32[512,1024]")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	mesh, _ := placement.ParseMesh("data=2,model=4", nil)
	opt := jobOptions{Mesh: mesh,
		SpecFor: func(string) (placement.Spec, error) { return placement.ParseSpec(`P("data", "model")`) },
		Target: func(_ safetensors.TensorInfo, s layout.Shape) (layout.Shape, error) {
			return rowMajor(layout.BF16, s.Dims), nil
		}}
	local, err := OpenCheckpoint(in)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "want")
	wm, err := convertDir(local, want, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			url := uploadTo(t, srv, "m.safetensors", data)
			p, proxy := storetest.NewProxy(t, srv.Endpoint, func(int) storetest.Fault { return storetest.Pass })
			srv.Point(t, proxy)
			ckpt, err := OpenCheckpoint(url)
			if err != nil {
				t.Fatal(err)
			}
			got := filepath.Join(t.TempDir(), "out")
			m, err := convertDir(ckpt, got, opt)
			if err != nil {
				t.Fatal(err)
			}
			sameFiles(t, want, got)
			if m.Sources[0].Fingerprint != wm.Sources[0].Fingerprint {
				t.Errorf("fingerprint %s from the bucket, %s from the file", m.Sources[0].Fingerprint, wm.Sources[0].Fingerprint)
			}
			// The header, one read per maxSpan (a band's reads end at the band's end:
			// at most one more a band), and the blocks that straddle two reads.
			reads := int(int64(len(data))/maxSpan) + 1
			if gets := p.Requests("GET"); gets > 2*reads+2 {
				t.Errorf("%d GETs for %d bytes in reads of %d; want at most %d", gets, len(data), maxSpan, 2*reads+2)
			}
			if c := p.Conns(); c > RemoteInFlight+2 {
				t.Errorf("%d connections for %d reads in flight", c, RemoteInFlight)
			}
		})
	}
}

// TestServerReadImageURL reads an object of each test server whole by ranges into a
// buffer of the manifest's size for it, and refuses one of another size naming it and
// both sizes, and a name that leaves the prefix.
func TestServerReadImageURL(t *testing.T) {
	defer setSpans(maxSpan, maxGap, RemoteAheadBytes)()
	aheadSpan = 1000 // several reads
	data := make([]byte, 4321)
	for i := range data {
		data[i] = byte(i * 29)
	}
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			out := strings.TrimSuffix(uploadTo(t, srv, "conv/w/0_0.bin", data), "/w/0_0.bin")
			got := make([]byte, len(data))
			if err := ReadImageURL(out, "w/0_0.bin", got); err != nil || !bytes.Equal(got, data) {
				t.Errorf("read %v, equal %v", err, bytes.Equal(got, data))
			}
			err := ReadImageURL(out+"/", "w/0_0.bin", make([]byte, 10))
			if want := out + "/w/0_0.bin is 4321 bytes, the manifest says 10"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("wrong size: %v; want %q", err, want)
			}
			if err := ReadImageURL(out, "../x.bin", got); err == nil || !strings.Contains(err.Error(), "is not a file under") {
				t.Errorf("../x.bin: %v", err)
			}
		})
	}
}
