// Package testenv sizes the tests' long sweeps. By default a sweep runs a sample that
// still reaches every kernel, layout kind and edge it is there for, so that plain
// `go test ./...` finishes in minutes; with the environment variable TPULAYOUT_LONG set
// (to anything but "" or "0") it runs whole, as CI's long run does (.ci/run). The -short
// and -race runs keep their own, smaller sizes.
package testenv

import "os"

// LongEnv is the environment variable that asks for the long sweeps.
const LongEnv = "TPULAYOUT_LONG"

// Long reports whether the long sweeps run: LongEnv is set to anything but "" or "0".
func Long() bool {
	v := os.Getenv(LongEnv)
	return v != "" && v != "0"
}

// Pick returns long under [Long] and def otherwise: a sweep's count, step or bound.
func Pick[T any](def, long T) T {
	if Long() {
		return long
	}
	return def
}
