//go:build !unix

package main

// stdoutReplaced is false where a closed standard output cannot be told apart.
func stdoutReplaced() bool { return false }
