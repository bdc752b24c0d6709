package sharding

import (
	"bytes"
	"path/filepath"
	"testing"
)

// progressLog records what a Progress hears.
type progressLog struct {
	totals    []int64
	done      int64
	adds      int
	afterDone bool // an Add past the total
}

func (p *progressLog) Total(n int64) { p.totals = append(p.totals, n) }
func (p *progressLog) Add(n int64) {
	p.done += n
	p.adds++
	if len(p.totals) == 0 || p.done > p.totals[len(p.totals)-1] {
		p.afterDone = true
	}
}

// check: one Total, before any Add, and the Adds make it up exactly.
func (p *progressLog) check(t *testing.T, what string, want int64) {
	t.Helper()
	if len(p.totals) != 1 || p.totals[0] != want || p.done != want || p.afterDone || p.adds < 2 {
		t.Errorf("%s: totals %v, %d bytes in %d adds (past the total: %v); want one total of %d, made up by several adds", what, p.totals, p.done, p.adds, p.afterDone, want)
	}
}

// TestProgress: verify, gather and a merge's checksums tell a Progress the bytes of
// shard files checked (gather: of OUT written), adding up to the total they gave.
func TestProgress(t *testing.T) {
	dir := partials(t)
	var merge progressLog
	m, err := MergeWith(dir, MergeOptions{Progress: &merge})
	if err != nil {
		t.Fatal(err)
	}
	merge.check(t, "merge", shardBytes(m))

	o, err := OpenOutdir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var v progressLog
	o.Progress = &v
	r, err := o.Verify(filepath.Join(fixtureDir, "mesh2d_repl_f32.safetensors"))
	if err != nil || len(r.Problems) > 0 {
		t.Fatalf("verify: %v, %+v", err, r)
	}
	v.check(t, "verify", shardBytes(m))

	var g progressLog
	o.Progress = &g
	var out bytes.Buffer
	if _, err := o.GatherTo(&out); err != nil {
		t.Fatal(err)
	}
	g.check(t, "gather", int64(out.Len()))
}
