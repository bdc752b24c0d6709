package convert

// Progress hears how far a Job has got, in bytes of Out written. A Job calls Total once
// the size is known, Add as bytes are written (from one goroutine at a time), and Done
// when the job ends, failed or not, so that a display can clear itself before an error
// is printed. A nil Progress hears nothing.
type Progress interface {
	Total(bytes int64)
	Add(bytes int64)
	Done()
}

// noProgress hears nothing.
type noProgress struct{}

func (noProgress) Total(int64) {}
func (noProgress) Add(int64)   {}
func (noProgress) Done()       {}

func orNone(p Progress) Progress {
	if p == nil {
		return noProgress{}
	}
	return p
}
