package safetensors

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// maxStem is the most bytes of a tensor name a file name keeps: file systems take 255
// bytes at most, and room is left for a hash, a "-N" suffix and an extension.
const maxStem = 160

// FileStem turns a tensor name into a file name stem that every file system takes:
// characters other than ASCII letters, digits, '.', '-' and '_' become '_', leading dots
// go, an empty result is "tensor", and a stem longer than 160 bytes keeps its first bytes
// and a hash of the whole name, so that long names sharing a beginning stay distinct.
// Distinct names can share a stem (and a case-insensitive file system folds case):
// callers that write several make them unique.
func FileStem(name string) string {
	var sb strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	stem := strings.TrimLeft(sb.String(), ".")
	if stem == "" {
		return "tensor"
	}
	if len(stem) <= maxStem {
		return stem
	}
	sum := sha256.Sum256([]byte(name))
	return strings.TrimRight(stem[:maxStem], "._-") + "-" + hex.EncodeToString(sum[:8])
}

// UniqueNames hands out the file names of several tensors written side by side: each
// tensor name's [FileStem] followed by Suffix, unique ignoring case (for file systems
// that ignore it): a repeat takes "-2", "-3", … before the suffix. A stem starting with
// Reserved (the prefix of other files beside them, such as "manifest") is renamed as a
// repeat is, with "t." in front. The zero value is ready to use.
type UniqueNames struct {
	Suffix   string // such as ".bin"; "" for directories
	Reserved string // a prefix no name may start with; "" for none
	used     map[string]bool
}

// Name returns the file name for the tensor name.
func (u *UniqueNames) Name(tensor string) string {
	if u.used == nil {
		u.used = map[string]bool{}
	}
	reserved := func(f string) bool { return u.Reserved != "" && strings.HasPrefix(f, u.Reserved) }
	stem := FileStem(tensor)
	f := stem + u.Suffix
	for i := 2; u.used[strings.ToLower(f)] || reserved(f); i++ {
		f = fmt.Sprintf("%s-%d%s", stem, i, u.Suffix)
		if reserved(stem) {
			f = "t." + f
		}
	}
	u.used[strings.ToLower(f)] = true
	return f
}
