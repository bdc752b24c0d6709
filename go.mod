module github.com/tpulayout/tpulayout

go 1.26.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	golang.org/x/sys v0.49.0
)

require gonum.org/v1/gonum v0.17.0
