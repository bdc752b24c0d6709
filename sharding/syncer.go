package sharding

import (
	"os"

	"github.com/tpulayout/tpulayout/buffer"
)

// syncer fsyncs and closes the image files of a one-process conversion in a goroutine
// of its own, so that waiting for the disk overlaps the conversion of the next shards
// (the files sit in the temporary directory, renamed into place after wait). At most
// syncQueue files wait, open, for their turn: add blocks beyond that.
type syncer struct {
	files chan *os.File
	done  chan struct{}
	err   error // the first Sync or Close error; read after done
	ended bool
}

const syncQueue = 64

func newSyncer() *syncer {
	s := &syncer{files: make(chan *os.File, syncQueue), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for f := range s.files {
			err := buffer.Sync(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if s.err == nil {
				s.err = err
			}
		}
	}()
	return s
}

// add queues f, written completely, to be synced and closed.
func (s *syncer) add(f *os.File) { s.files <- f }

// wait syncs and closes what is queued and returns the first error. It may be called
// again (it must be, to close the files, on every path).
func (s *syncer) wait() error {
	if !s.ended {
		s.ended = true
		close(s.files)
	}
	<-s.done
	return s.err
}
