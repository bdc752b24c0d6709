//go:build !race

package hlo

// raceEnabled: see race_on_test.go.
const raceEnabled = false
