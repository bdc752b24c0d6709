//go:build purego || race

package main

// readmeTagged: TestREADME builds the commands without the test's build tags, so a
// purego or race run of it would only repeat the untagged run.
const readmeTagged = true
