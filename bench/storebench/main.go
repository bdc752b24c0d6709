// Command storebench is the helper of bench/store-throughput.sh: it uploads a file
// to a bucket, and reads an object back by plain ranged GETs (the baseline a
// conversion from the bucket is compared with).
//
//	storebench put FILE URL
//	storebench get URL OFFSET LENGTH   # prints bytes and seconds
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/tpulayout/tpulayout/store"
)

// The conversion's own read pattern: 4 MiB ranges, 8 in flight.
const (
	span     = 4 << 20
	inFlight = 8
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
	case len(args) == 4 && args[0] == "get":
		off, err1 := strconv.ParseInt(args[2], 10, 64)
		n, err2 := strconv.ParseInt(args[3], 10, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("bad OFFSET or LENGTH")
		}
		b, key, err := store.Open(ctx, args[1])
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
		for at := off; at < off+n; at += span * inFlight {
			var rs []store.Range
			for i := range inFlight {
				p := at + int64(i)*span
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
	return fmt.Errorf("usage: storebench put FILE URL | storebench get URL OFFSET LENGTH")
}
