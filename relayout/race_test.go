//go:build race

package relayout

// raceBuild shrinks the sweeps under -race, which is about 20× slower; the full counts
// run in the ordinary test.
const raceBuild = true
