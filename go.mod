module github.com/tpulayout/tpulayout

go 1.26.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	golang.org/x/sys v0.49.0
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/text v0.23.0 // indirect
