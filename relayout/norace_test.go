//go:build !race

package relayout

const raceBuild = false
