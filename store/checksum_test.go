package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/store/storetest"
)

func crc32cOf(b []byte) []byte {
	return binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// checkPutCRC32C puts data under key with its CRC-32C, then with a wrong one: the
// first is kept, the second refused with ErrChecksum and leaves the first in place.
func checkPutCRC32C(t *testing.T, b *Bucket, key string) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("tpulayout crc32c "), 1<<16) // 1 MiB
	good := crc32cOf(data)
	if err := b.PutFileCRC32C(ctx, key, bytes.NewReader(data), int64(len(data)), map[string]string{"crc32c": "x"}, good); err != nil {
		t.Fatalf("upload with the right CRC-32C: %v", err)
	}
	bad := bytes.Clone(good)
	bad[3] ^= 1
	other := bytes.Repeat([]byte("replaced"), 100)
	err := b.PutFileCRC32C(ctx, key, bytes.NewReader(other), int64(len(other)), nil, bad)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), key) {
		t.Fatalf("upload with a wrong CRC-32C: %v, want ErrChecksum naming %s", err, key)
	}
	got, err := b.ReadAll(ctx, key)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after the refused upload the object is %d bytes (%v), want the first %d", len(got), err, len(data))
	}
	if err := b.PutFileCRC32C(ctx, key, bytes.NewReader(data), 3, nil, []byte{1, 2}); err == nil {
		t.Error("a CRC-32C of 2 bytes was taken")
	}
}

func TestPutCRC32CFile(t *testing.T) {
	dir := t.TempDir()
	b, key, err := Open(context.Background(), filepath.Join(dir, "x.bin"))
	if err != nil {
		t.Fatal(err)
	}
	checkPutCRC32C(t, b, key)
}

func TestServerPutCRC32C(t *testing.T) {
	eachServer(t, func(t *testing.T, s storetest.Server) {
		b, key := openNew(t, s, "dir/x.bin")
		checkPutCRC32C(t, b, key)
	})
}
