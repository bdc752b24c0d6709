// Package walkthrough makes the small inputs of the README's walkthrough (the tpulayout
// command's example verb): the same bytes on every machine, from a fixed seed and
// without floating-point library calls.
package walkthrough
