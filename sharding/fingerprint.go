package sharding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// ManifestSource is one file of the source checkpoint as a process read it: its size
// and a fingerprint of its contents. Merge compares them between processes, so that
// a checkpoint replaced between runs (same names and shapes, other data) is caught.
type ManifestSource struct {
	File        string `json:"file"`
	Bytes       int64  `json:"bytes"`
	Fingerprint string `json:"fingerprint"`
}

// fingerprintSamples and fingerprintBlock: the fingerprint is the SHA-256 of the whole
// file up to fingerprintSamples*fingerprintBlock bytes (1 MiB), else of its first MiB
// (the header and the first tensors' data) and of fingerprintSamples blocks at evenly
// spaced offsets through the rest, the last block ending the file. A full hash would
// read the whole checkpoint in every process; this reads 2 MiB of it and still
// differs between any two checkpoints of a model that differ in most of their bytes,
// as two training steps do. verify compares every byte.
const (
	fingerprintSamples = 256
	fingerprintBlock   = 4096
)

// fingerprint returns the fingerprint of the file at path and its size.
func fingerprint(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	size := st.Size()
	h := sha256.New()
	head := int64(fingerprintSamples * fingerprintBlock)
	if _, err := io.Copy(h, io.LimitReader(f, head)); err != nil {
		return "", 0, err
	}
	if size > head {
		buf := make([]byte, fingerprintBlock)
		span := size - head - fingerprintBlock
		for i := range int64(fingerprintSamples) {
			off := head
			if span > 0 {
				off += span * i / (fingerprintSamples - 1)
			}
			n, err := f.ReadAt(buf, off)
			if err != nil && err != io.EOF {
				return "", 0, err
			}
			h.Write(buf[:n])
		}
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// sourcesOf fingerprints the files of the checkpoint that hold the tensors a job
// converts, by base name in sorted order.
func sourcesOf(files []string) ([]ManifestSource, error) {
	files = slices.Clone(files)
	slices.Sort(files)
	files = slices.Compact(files)
	out := []ManifestSource{}
	for _, p := range files {
		fp, n, err := fingerprint(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read the source %s: %w", p, err)
		}
		out = append(out, ManifestSource{File: filepath.Base(p), Bytes: n, Fingerprint: fp})
	}
	return out, nil
}

// checkSources compares the fingerprints of the checkpoint's files now with those in
// a manifest and returns what differs ("" if nothing, or the manifest has none).
func checkSources(listed []ManifestSource, dir string) string {
	for _, s := range listed {
		fp, n, err := fingerprint(filepath.Join(dir, s.File))
		switch {
		case err != nil:
			return fmt.Sprintf("source file %s: %v", s.File, err)
		case n != s.Bytes || fp != s.Fingerprint:
			return fmt.Sprintf("source file %s is not the one converted: %d bytes, fingerprint %.12s…; the manifest says %d bytes, %.12s…",
				s.File, n, fp, s.Bytes, s.Fingerprint)
		}
	}
	return ""
}
