package sharding

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
	// ChecksumCRC32C is CRC-32C (Castagnoli), the default: what GCS and S3 verify
	// natively, hashed at memory speed (SSE4.2/ARMv8 CRC instructions). It finds
	// every burst of up to 32 flipped bits and misses a random corruption of an image
	// with probability 2^-32; it is no defence against deliberate tampering.
	ChecksumCRC32C = "crc32c"
	// ChecksumSHA256 is SHA-256: also tamper evidence and content addressing, at about
	// a fifteenth of CRC-32C's speed.
	ChecksumSHA256 = "sha256"
)

// DefaultChecksum is the algorithm a conversion uses unless told otherwise.
const DefaultChecksum = ChecksumCRC32C

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is one algorithm: its name (the manifest's "checksum", the shard's key
// and the objects' metadata key are all this name) and the length of its hex sum.
type checksum struct {
	name   string
	hexLen int
}

var (
	sumCRC32C = checksum{ChecksumCRC32C, 8}
	sumSHA256 = checksum{ChecksumSHA256, 64}
)

// checksumNamed returns the algorithm called name.
func checksumNamed(name string) (checksum, error) {
	switch name {
	case ChecksumCRC32C:
		return sumCRC32C, nil
	case ChecksumSHA256:
		return sumSHA256, nil
	}
	return checksum{}, fmt.Errorf("checksum %q, want %q or %q", name, ChecksumCRC32C, ChecksumSHA256)
}

// New returns a hash of the algorithm; its Sum is the big-endian bytes of the sum
// (CRC-32C's four bytes as GCS and S3 give them).
func (c checksum) New() hash.Hash {
	if c.name == ChecksumSHA256 {
		return sha256.New()
	}
	return crc32.New(castagnoli)
}

// hex is h's sum as the manifest writes it: lowercase hex of the big-endian bytes.
func (c checksum) hex(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// of is the checksum of data.
func (c checksum) of(data []byte) string {
	h := c.New()
	h.Write(data)
	return c.hex(h)
}

// valid reports whether s is a sum of the algorithm as the manifest writes it.
func (c checksum) valid(s string) bool {
	return len(s) == c.hexLen && strings.Trim(s, "0123456789abcdef") == ""
}

// Checksum returns the shard's checksum: its algorithm's name and the hex sum.
func (s ManifestShard) Checksum() (name, sum string) {
	c, sum := s.sum()
	return c.name, sum
}

// sum is the shard's algorithm and sum: the one of its fields that is set
// (ParseManifest checks that it is the one its manifest names).
func (s ManifestShard) sum() (checksum, string) {
	if s.SHA256 != "" {
		return sumSHA256, s.SHA256
	}
	return sumCRC32C, s.CRC32C
}

// setSum sets the shard's field of c to sum (and clears the other).
func (s *ManifestShard) setSum(c checksum, sum string) {
	s.SHA256, s.CRC32C = "", ""
	if c.name == ChecksumSHA256 {
		s.SHA256 = sum
	} else {
		s.CRC32C = sum
	}
}

// newHash is a hash of the shard's algorithm, to check its file with sumDiffers.
func (s ManifestShard) newHash() hash.Hash {
	c, _ := s.sum()
	return c.New()
}

// sumDiffers returns "" when h, fed the shard's file, matches its checksum, else
// "ALGO SUM, the manifest says WANT".
func (s ManifestShard) sumDiffers(h hash.Hash) string {
	c, want := s.sum()
	if got := c.hex(h); got != want {
		return fmt.Sprintf("%s %s, the manifest says %s", c.name, got, want)
	}
	return ""
}

// checkSums checks that every shard carries a well-formed sum of the algorithm the
// manifest names and no other.
func (m *Manifest) checkSums() error {
	c, err := checksumNamed(m.Checksum)
	if err != nil {
		return err
	}
	for _, t := range m.Tensors {
		for _, s := range t.Shards {
			got, sum := s.sum()
			switch {
			case s.SHA256 == "" && s.CRC32C == "":
				return fmt.Errorf("tensor %q: shard %s has no %q checksum", t.Name, s.File, c.name)
			case s.SHA256 != "" && s.CRC32C != "":
				got = checksum{name: "both sha256 and crc32c"}
			}
			if got != c {
				return fmt.Errorf("tensor %q: shard %s has %s, the manifest's checksum is %s: a shard carries the sum the manifest names, only",
					t.Name, s.File, got.name, c.name)
			}
			if !c.valid(sum) {
				return fmt.Errorf("tensor %q: shard %s: %s %q is not %d lowercase hex digits", t.Name, s.File, c.name, sum, c.hexLen)
			}
		}
	}
	return nil
}

// mismatch is gather's error for a shard file that does not match its checksum.
func (s ManifestShard) mismatch() error {
	c, _ := s.sum()
	return fmt.Errorf("%s does not match its %s in the manifest: the replicas of shard %v would disagree", s.File, c.name, s.Index)
}

// ChecksumOf is the checksum alg (ChecksumCRC32C, ChecksumSHA256) of data, in hex as
// a manifest's shards carry it.
func ChecksumOf(alg string, data []byte) (string, error) {
	c, err := checksumNamed(alg)
	if err != nil {
		return "", fmt.Errorf("sharding: %w", err)
	}
	return c.of(data), nil
}
