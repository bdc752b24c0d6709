package main

import "os"

func main() {
	exitOnSignal(os.Stderr)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
