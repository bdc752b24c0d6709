// Package compilehook lets tests hear the shapes layout.Compile compiles, to count
// the compiles a job makes.
package compilehook

import "sync/atomic"

var hook atomic.Pointer[func(shape string)]

// Set makes f hear the text of each shape layout.Compile compiles from now on (nil:
// nothing hears them) and returns a function that puts back the one before.
func Set(f func(shape string)) (restore func()) {
	var p *func(string)
	if f != nil {
		p = &f
	}
	old := hook.Swap(p)
	return func() { hook.Store(old) }
}

// On reports whether a hook is set.
func On() bool { return hook.Load() != nil }

// Compiled tells the hook, if one is set, that shape was compiled.
func Compiled(shape string) {
	if f := hook.Load(); f != nil {
		(*f)(shape)
	}
}
