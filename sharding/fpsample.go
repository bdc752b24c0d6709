package sharding

// This file fingerprints a checkpoint's objects in a bucket from the reads the
// conversion makes anyway. Asked for on their own, the fingerprint's 257 blocks were
// 257 requests (288 before its first MiB was one read), one at a time before the
// conversion started: on versitygw each request costs about 1 ms of server CPU
// whatever its size, so they doubled its work for a 1 GiB checkpoint and delayed the
// start by 0.3 s. Now a block is taken from any ranged read that holds it whole (the
// safetensors header read holds the first MiB), and only the blocks no read held are
// asked for at the end, several at once.

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tpulayout/tpulayout/store"
)

// fpHeldMost bounds the bytes of blocks held out of order by the samplers of one
// checkpoint's objects together (a block is hashed as soon as those before it are;
// one object's blocks are 1 MiB): past it, blocks are dropped and read again at the
// end. Per checkpoint, so that one never fingerprinted (opened for verify, say) holds
// no one else's share.
const fpHeldMost = 16 << 20

// fpLate counts the blocks read at the end, no read having held them: tests check
// that a conversion leaves few.
var fpLate atomic.Int64

// fpSampler collects the blocks of one object's fingerprint from its reads.
type fpSampler struct {
	blocks []run         // fpBlocks: off and n in the object, in hashing order
	budget *atomic.Int64 // bytes held by the checkpoint's samplers (fpHeldMost)
	mu     sync.Mutex
	h      hash.Hash
	next   int      // blocks[:next] are hashed
	held   [][]byte // a block's bytes, taken out of order
}

func newFPSampler(size int64, budget *atomic.Int64) *fpSampler {
	bs := fpBlocks(size)
	return &fpSampler{blocks: bs, budget: budget, h: sha256.New(), held: make([][]byte, len(bs))}
}

// sample has o's reads feed a new sampler of its fingerprint, which shares budget
// with the other objects' of the checkpoint.
func sample(o *store.Object, budget *atomic.Int64) *fpSampler {
	s := newFPSampler(o.Size(), budget)
	o.Observe(s.observe)
	return s
}

// observe takes the blocks that lie whole in the bytes p read from off.
func (s *fpSampler) observe(off int64, p []byte) {
	end := off + int64(len(p))
	// Blocks are in increasing order of offset: the first that starts at or after off.
	i, _ := slices.BinarySearchFunc(s.blocks, off, func(b run, off int64) int { return cmp.Compare(b.off, off) })
	if i == len(s.blocks) || s.blocks[i].off+s.blocks[i].n > end {
		return // the common case: no block lies in this read
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for ; i < len(s.blocks) && s.blocks[i].off+s.blocks[i].n <= end; i++ {
		b := s.blocks[i]
		if i < s.next || s.held[i] != nil {
			continue
		}
		bytes := p[b.off-off : b.off-off+b.n]
		if i == s.next {
			s.h.Write(bytes)
			s.next++
			s.drain()
			continue
		}
		if s.budget.Add(b.n) > fpHeldMost {
			s.budget.Add(-b.n)
			continue
		}
		s.held[i] = slices.Clone(bytes)
	}
}

// drain hashes the held blocks that are next in order.
func (s *fpSampler) drain() {
	for s.next < len(s.blocks) && s.held[s.next] != nil {
		s.h.Write(s.held[s.next])
		s.budget.Add(-int64(len(s.held[s.next])))
		s.held[s.next] = nil
		s.next++
	}
}

// sum stops the sampling, reads from o the blocks that no read held
// (RemoteInFlight at once) and returns the fingerprint.
func (s *fpSampler) sum(o *store.Object) (string, error) {
	o.Observe(nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	var rs []store.Range
	var at []int
	for i := s.next; i < len(s.blocks); i++ {
		if s.held[i] == nil {
			b := s.blocks[i]
			rs = append(rs, store.Range{Off: b.off, Buf: make([]byte, b.n)})
			at = append(at, i)
		}
	}
	fpLate.Add(int64(len(rs)))
	if err := o.ReadRanges(rs, RemoteInFlight); err != nil {
		return "", err
	}
	for k, i := range at {
		s.held[i] = rs[k].Buf
		s.budget.Add(int64(len(rs[k].Buf)))
	}
	s.drain()
	return hex.EncodeToString(s.h.Sum(nil)), nil
}
