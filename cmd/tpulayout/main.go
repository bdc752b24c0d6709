package main

import (
	"fmt"
	"os"

	"github.com/tpulayout/tpulayout/store"
)

func main() {
	exitOnSignal(os.Stderr)
	// A read from a bucket that is being retried says so, a line each try, rather
	// than leave the terminal silent for as long as the retries take.
	store.DefaultRetry.Notify = func(n store.Note) { fmt.Fprintf(os.Stderr, "tpulayout: %s\n", n) }
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
