package sharding

import (
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"io"
)

// Progress hears how far a long read of a conversion's files has got, in bytes: of
// the shard files checked (verify, a merge's checksums) or of OUT written (gather).
// Total comes once, when the size is known, then Add as each part is done, from one
// goroutine at a time. A command draws it (convert.TermProgress is one); nil hears
// nothing.
type Progress interface {
	Total(bytes int64)
	Add(bytes int64)
}

type noProgress struct{}

func (noProgress) Total(int64) {}
func (noProgress) Add(int64)   {}

func orNone(p Progress) Progress {
	if p == nil {
		return noProgress{}
	}
	return p
}

// shardBytes is the size of every shard file the manifest lists.
func shardBytes(m *manifest.Manifest) int64 {
	var n int64
	for _, t := range m.Tensors {
		for _, s := range t.Shards {
			n += s.Bytes
		}
	}
	return n
}

// countingWriter tells p of every byte written through it.
type countingWriter struct {
	w io.Writer
	p Progress
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.p.Add(int64(n))
	return n, err
}
