package convert

// Temps hears of the temporary outputs a Job writes: Out's temporary file (or, with
// All, its temporary tree) before it is renamed into place, and an old tree that Force
// moves aside. A command that removes them when a signal ends the process passes one,
// so that an interrupted job leaves Out as it was and nothing beside it.
//
// A temporary is created between Hold and the release it returns, and Tracked while
// held, so that a cleanup that takes the same hold never misses one that exists;
// Untrack follows once it is renamed or removed. Placed says that Out is complete
// and in place: from then on only a report can be lost.
type Temps interface {
	Hold() (release func())
	Track(path string)
	Untrack(path string)
	Placed()
}

// TempFuncs is a Temps made of functions, any of which may be nil (then it does
// nothing); the zero TempFuncs hears nothing.
type TempFuncs struct {
	HoldFn    func() (release func())
	TrackFn   func(path string)
	UntrackFn func(path string)
	PlacedFn  func()
}

func (t TempFuncs) Hold() func() {
	if t.HoldFn == nil {
		return func() {}
	}
	return t.HoldFn()
}

func (t TempFuncs) Track(path string) {
	if t.TrackFn != nil {
		t.TrackFn(path)
	}
}

func (t TempFuncs) Untrack(path string) {
	if t.UntrackFn != nil {
		t.UntrackFn(path)
	}
}

func (t TempFuncs) Placed() {
	if t.PlacedFn != nil {
		t.PlacedFn()
	}
}

// temps is j.Temps, or one that hears nothing.
func (j *Job) temps() Temps {
	if j.Temps == nil {
		return TempFuncs{}
	}
	return j.Temps
}
