package convert

import (
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/report"
)

// guardMapped runs convert, which reads src, and turns a memory fault inside src's
// bytes into an error naming in. src often maps file (which messages call in): if another process truncates it
// meanwhile, reading the pages past its new end raises SIGBUS, which would kill the
// process with its temporary output in place. With panics on faults (relayout's
// workers hand theirs to the caller) the fault unwinds through the cleanups instead.
func (n names) guardMapped(file, in string, src *buffer.Buffer, convert func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if f, ok := r.(interface{ Addr() uintptr }); ok && len(src.Data) > 0 {
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(src.Data)))
			if a := f.Addr(); a >= lo && a-lo < uintptr(len(src.Data)) {
				now := "it is gone"
				if st, serr := os.Stat(file); serr == nil {
					now = "it has " + report.Plural(st.Size(), "byte") + " now"
				}
				err = n.errf(Input, "cannot read {In} %s: it shrank or failed while it was read (%s); {Out} is left as it was", in, now)
				return
			}
		}
		panic(r)
	}()
	return convert()
}
