//go:build race

package relayout

// raceBuild shrinks the random-pair test under -race, which is about 20× slower; the full
// count runs in the ordinary test.
const raceBuild = true
