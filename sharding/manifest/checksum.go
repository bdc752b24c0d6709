package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"strings"
)

// Checksum algorithms of the shard images, as a manifest's "checksum" names them.
const (
	// CRC32C is CRC-32C (Castagnoli), the default: what GCS and S3 verify
	// natively, hashed at memory speed (SSE4.2/ARMv8 CRC instructions). It finds
	// every burst of up to 32 flipped bits and misses a random corruption of an image
	// with probability 2^-32; it is no defence against deliberate tampering.
	CRC32C = "crc32c"
	// SHA256 is SHA-256: also tamper evidence and content addressing, at about
	// a fifteenth of CRC-32C's speed.
	SHA256 = "sha256"
)

// DefaultChecksum is the algorithm a conversion uses unless told otherwise.
const DefaultChecksum = CRC32C

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum is one algorithm: its name (the manifest's "checksum", the shard's key
// and the objects' metadata key are all this name) and the length of its hex sum.
type Checksum struct {
	name   string
	hexLen int
}

var (
	sumCRC32C = Checksum{CRC32C, 8}
	sumSHA256 = Checksum{SHA256, 64}
)

// ChecksumNamed returns the algorithm called name (CRC32C or SHA256).
func ChecksumNamed(name string) (Checksum, error) {
	switch name {
	case CRC32C:
		return sumCRC32C, nil
	case SHA256:
		return sumSHA256, nil
	}
	return Checksum{}, &FormatError{Msg: fmt.Sprintf("checksum %q, want %q or %q", name, CRC32C, SHA256)}
}

// Name is the algorithm's name, as the manifest's "checksum" says it.
func (c Checksum) Name() string { return c.name }

// NewCRC32C returns a CRC-32C hash (Castagnoli), whose Sum is the four bytes GCS and S3
// give.
func NewCRC32C() hash.Hash { return crc32.New(castagnoli) }

// New returns a hash of the algorithm; its Sum is the big-endian bytes of the sum
// (CRC-32C's four bytes as GCS and S3 give them).
func (c Checksum) New() hash.Hash {
	if c.name == SHA256 {
		return sha256.New()
	}
	return crc32.New(castagnoli)
}

// Hex is h's sum as the manifest writes it: lowercase hex of the big-endian bytes.
func (c Checksum) Hex(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// Of is the checksum of data.
func (c Checksum) Of(data []byte) string {
	h := c.New()
	h.Write(data)
	return c.Hex(h)
}

// Valid reports whether s is a sum of the algorithm as the manifest writes it.
func (c Checksum) Valid(s string) bool {
	return len(s) == c.hexLen && strings.Trim(s, "0123456789abcdef") == ""
}

// Checksum returns the shard's checksum: its algorithm's name and the hex sum.
func (s Shard) Checksum() (name, sum string) {
	c, sum := s.Sum()
	return c.name, sum
}

// Sum is the shard's algorithm and sum: the one of its fields that is set
// (ParseManifest checks that it is the one its manifest names).
func (s Shard) Sum() (Checksum, string) {
	if s.SHA256 != "" {
		return sumSHA256, s.SHA256
	}
	return sumCRC32C, s.CRC32C
}

// SetSum sets the shard's field of c to sum (and clears the other).
func (s *Shard) SetSum(c Checksum, sum string) {
	s.SHA256, s.CRC32C = "", ""
	if c.name == SHA256 {
		s.SHA256 = sum
	} else {
		s.CRC32C = sum
	}
}

// NewHash is a hash of the shard's algorithm, to check its file with sumDiffers.
func (s Shard) NewHash() hash.Hash {
	c, _ := s.Sum()
	return c.New()
}

// SumDiffers returns "" when h, fed the shard's file, matches its checksum, else
// "ALGO SUM, the manifest says WANT".
func (s Shard) SumDiffers(h hash.Hash) string {
	c, want := s.Sum()
	if got := c.Hex(h); got != want {
		return fmt.Sprintf("%s %s, the manifest says %s", c.name, got, want)
	}
	return ""
}

// checkSums checks that every shard carries a well-formed sum of the algorithm the
// manifest names and no other.
func (m *Manifest) checkSums() error {
	c, err := ChecksumNamed(m.Checksum)
	if err != nil {
		return err
	}
	for _, t := range m.Tensors {
		for _, s := range t.Shards {
			got, sum := s.Sum()
			switch {
			case s.SHA256 == "" && s.CRC32C == "":
				return &FormatError{Tensor: t.Name, Msg: fmt.Sprintf("tensor %q: shard %s has no %q checksum", t.Name, s.File, c.name)}
			case s.SHA256 != "" && s.CRC32C != "":
				got = Checksum{name: "both sha256 and crc32c"}
			}
			if got != c {
				return &FormatError{Tensor: t.Name, Msg: fmt.Sprintf("tensor %q: shard %s has %s, the manifest's checksum is %s: a shard carries the sum the manifest names, only",
					t.Name, s.File, got.name, c.name)}
			}
			if !c.Valid(sum) {
				return &FormatError{Tensor: t.Name, Msg: fmt.Sprintf("tensor %q: shard %s: %s %q is not %d lowercase hex digits", t.Name, s.File, c.name, sum, c.hexLen)}
			}
		}
	}
	return nil
}

// Mismatch is gather's error for a shard file that does not match its checksum.
func (s Shard) Mismatch() error {
	c, _ := s.Sum()
	return &SumError{File: s.File, Checksum: c.name, Index: s.Index}
}

// ChecksumOf is the checksum alg (ChecksumCRC32C, ChecksumSHA256) of data, in hex as
// a manifest's shards carry it.
func ChecksumOf(alg string, data []byte) (string, error) {
	c, err := ChecksumNamed(alg)
	if err != nil {
		return "", fmt.Errorf("sharding: %w", err)
	}
	return c.Of(data), nil
}

// SumError is a shard file whose bytes do not match its checksum in the manifest.
type SumError struct {
	File     string
	Checksum string // the algorithm
	Index    []int  // the shard's
}

func (e *SumError) Error() string {
	return fmt.Sprintf("%s does not match its %s in the manifest: the replicas of shard %v would disagree", e.File, e.Checksum, e.Index)
}
