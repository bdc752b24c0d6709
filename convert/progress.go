package convert

// Progress hears how far a Job has got, in bytes of Out written. A Job calls Total once
// the size is known and Add as bytes are written (from one goroutine at a time). Done
// comes when writing one array ends, failed or not, so that a display can clear itself
// before an error is printed; with All, once every tensor is written and Out is in
// place (a failed All does not call it). A nil Progress hears nothing.
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
