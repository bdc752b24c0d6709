package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/sharding"
)

// shardCheckpoint writes testfiles.ShardCheckpoint into a new directory and returns it.
func shardCheckpoint(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testfiles.ShardCheckpoint(t, dir)
	return dir
}

func writeText(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeFiles reads every file under dir, by path relative to it.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = readFile(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// setShardBand sets sharding.BandBytes for the rest of the test.
func setShardBand(t *testing.T, n int64) {
	old := sharding.BandBytes
	sharding.BandBytes = n
	t.Cleanup(func() { sharding.BandBytes = old })
}

func crc32cHex(b []byte) string {
	return fmt.Sprintf("%08x", crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
