package sharding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

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

// fpBlocks lists the byte ranges the fingerprint of size bytes hashes, in order
// (run.o unused): the first MiB (or the whole file), then the sampled blocks.
func fpBlocks(size int64) []run {
	head := int64(fingerprintSamples * fingerprintBlock)
	bs := []run{{off: 0, n: min(head, size)}}
	if size > head {
		span := size - head - fingerprintBlock
		for i := range int64(fingerprintSamples) {
			off := head
			if span > 0 {
				off += span * i / (fingerprintSamples - 1)
			}
			bs = append(bs, run{off: off, n: min(fingerprintBlock, size-off)})
		}
	}
	return bs
}

// fingerprint returns the fingerprint of the size bytes r holds, a local file.
func fingerprint(r io.ReaderAt, size int64) (string, error) {
	h := sha256.New()
	buf := make([]byte, fingerprintSamples*fingerprintBlock)
	for _, b := range fpBlocks(size) {
		if _, err := readAt(r, buf[:b.n], b.off); err != nil {
			return "", err
		}
		h.Write(buf[:b.n])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fingerprintFile is fingerprint of the file at path, and its size.
func fingerprintFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	fp, err := fingerprint(f, st.Size())
	return fp, st.Size(), err
}

// sources fingerprints the files of the checkpoint that hold the tensors the job
// converts (objects from their reads, see fpsample.go), by base name in sorted order.
func (j *shardJob) sources() ([]manifest.Source, error) {
	seen := map[*safetensors.File]bool{}
	out := []manifest.Source{}
	for _, t := range j.tensors {
		f := t.t.File
		if seen[f] {
			continue
		}
		seen[f] = true
		fp, n, err := j.ckpt.file(f).fingerprint()
		if err != nil {
			return nil, fmt.Errorf("cannot read the source %s: %w", f.Path, err)
		}
		out = append(out, manifest.Source{File: filepath.Base(f.Path), Bytes: n, Fingerprint: fp})
	}
	slices.SortFunc(out, func(a, b manifest.Source) int { return strings.Compare(a.File, b.File) })
	return out, nil
}
