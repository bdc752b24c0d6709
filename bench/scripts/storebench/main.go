// Command storebench is the helper of bench/scripts/store-throughput.sh: it uploads a file
// to a bucket, and reads an object back by plain ranged GETs (the baseline a
// conversion from the bucket is compared with).
//
//	storebench put FILE URL
//	storebench get [-span BYTES] [-inflight N] URL OFFSET LENGTH   # prints bytes and seconds
//	storebench copy   # Go's copy() of a 256 MiB array, one goroutine: best and median GB/s of 7
//
// get's ranges default to 4 MiB, 8 in flight; -span and -inflight measure others.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/tpulayout/tpulayout/store"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "storebench:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	ctx := context.Background()
	switch {
	case len(args) == 3 && args[0] == "put":
		f, err := os.Open(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		b, key, err := store.Open(ctx, args[2])
		if err != nil {
			return err
		}
		return b.PutFile(ctx, key, f, st.Size(), nil)
	case len(args) == 1 && args[0] == "copy":
		copySpeed()
		return nil
	case len(args) > 0 && args[0] == "get":
		fs := flag.NewFlagSet("get", flag.ContinueOnError)
		span := fs.Int64("span", 4<<20, "bytes per ranged read")
		inFlight := fs.Int("inflight", 8, "reads in flight")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if args = fs.Args(); len(args) != 3 || *span < 1 || *inFlight < 1 {
			break
		}
		return get(ctx, args[0], args[1], args[2], *span, *inFlight)
	}
	return fmt.Errorf("usage: storebench put FILE URL | storebench get [-span BYTES] [-inflight N] URL OFFSET LENGTH | storebench copy")
}

// get reads length bytes from off of the object at url in ranges of span bytes,
// inFlight at once, into buffers reused from a fixed set, as a conversion does.
func get(ctx context.Context, url, offArg, nArg string, span int64, inFlight int) error {
	off, err1 := strconv.ParseInt(offArg, 10, 64)
	n, err2 := strconv.ParseInt(nArg, 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("bad OFFSET or LENGTH")
	}
	b, key, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	o, err := b.Object(ctx, key)
	if err != nil {
		return err
	}
	bufs := make([][]byte, inFlight)
	for i := range bufs {
		bufs[i] = make([]byte, span)
	}
	t0 := time.Now()
	for at := off; at < off+n; at += span * int64(inFlight) {
		var rs []store.Range
		for i := range int64(inFlight) {
			p := at + i*span
			if p >= off+n {
				break
			}
			rs = append(rs, store.Range{Off: p, Buf: bufs[i][:min(span, off+n-p)]})
		}
		if err := o.ReadRanges(rs, inFlight); err != nil {
			return err
		}
	}
	fmt.Printf("%d %.3f\n", n, time.Since(t0).Seconds())
	return nil
}

// copySpeed prints the machine's copy() speed, which every speed figure is read
// beside: a 256 MiB array copied by one goroutine, 7 times.
func copySpeed() {
	const n = 256 << 20
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // fault the pages in
	var gbs []float64
	for range 7 {
		t0 := time.Now()
		copy(dst, src)
		gbs = append(gbs, n/time.Since(t0).Seconds()/1e9)
	}
	slices.Sort(gbs)
	fmt.Printf("copy() of 256 MiB, one goroutine: %.1f GB/s best, %.1f GB/s median of 7\n", gbs[6], gbs[3])
}
