//go:build !(purego || race)

package main

const readmeTagged = false
