//go:build race

package hlo

// raceEnabled: the race detector's instrumentation allocates, so tests that count
// allocations or bytes per instruction skip under it.
const raceEnabled = true
