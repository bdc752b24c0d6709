package sharding

import (
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer"
)

// sink is where a job writes its files, named relative to the output (such as
// "w/0.0.bin" and "manifest.json"): a directory (dirSink) or the objects under a
// bucket prefix (bucketSink). shardJob.write writes through it as zip.Writer writes to
// an io.Writer, never asking which it is.
type sink interface {
	// prepare readies the folder rel of the output ("" for its top) for the files
	// put into it.
	prepare(rel string) error
	// present returns the checksums of files when every one is already there from
	// an earlier run of this same conversion; nil otherwise.
	present(files []string) ([]string, error)
	// put writes files at once, with write given a writer for each. hs, when not
	// nil, are hashes of the job's manifest.Checksum that write feeds each file's bytes.
	put(files []string, hs []hash.Hash, write func(ws []io.Writer) error) error
	// flush completes what put wrote (synced and closed) and returns its first
	// error. It may be called again, and must be called on every path.
	flush() error
}

// dirSink writes a job's files into a directory: the one-process conversion's
// temporary directory (whole), renamed into place as a whole at the end, whose files
// are plain, synced and closed behind the conversion; or a directory the processes
// share, where each file goes through a temporary file of its own renamed into place
// (buffer.WriteFileAtomicFile), and what killed runs left is removed first.
type dirSink struct {
	dir  string
	opt  *jobOptions
	sync *syncer // whole: syncs and closes the files; nil for a shared directory
}

// newDirSink returns the sink of dir; whole says dir is the job's own temporary
// directory.
func newDirSink(dir string, whole bool, opt *jobOptions) *dirSink {
	s := &dirSink{dir: dir, opt: opt}
	if whole {
		s.sync = newSyncer()
	}
	return s
}

func (s *dirSink) prepare(rel string) error {
	dir := filepath.Join(s.dir, rel)
	if rel != "" {
		release := s.opt.hold()
		err := os.MkdirAll(dir, 0o755)
		release()
		if err != nil {
			return err
		}
	}
	if s.sync == nil {
		// A killed earlier run of this or another process left its temporaries;
		// one still being written is locked and stays.
		buffer.RemoveStaleTempsIn(dir)
	}
	return nil
}

func (s *dirSink) present([]string) ([]string, error) { return nil, nil }

func (s *dirSink) flush() error {
	if s.sync == nil {
		return nil
	}
	return s.sync.wait()
}

func (s *dirSink) put(files []string, _ []hash.Hash, write func(ws []io.Writer) error) error {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(s.dir, f)
	}
	if s.sync != nil {
		return s.putPlain(paths, write)
	}
	return s.putAtomic(paths, write)
}

// putPlain creates the files at paths, has write write them and hands them to the
// syncer.
func (s *dirSink) putPlain(paths []string, write func(ws []io.Writer) error) (err error) {
	ws := make([]io.Writer, len(paths))
	fs := make([]*os.File, 0, len(paths))
	defer func() {
		for _, f := range fs { // nil once handed to the syncer
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}()
	for i, p := range paths {
		release := s.opt.hold()
		f, err := os.Create(p)
		release()
		if err != nil {
			return err
		}
		fs = append(fs, f)
		ws[i] = f
	}
	if err := write(ws); err != nil {
		return err
	}
	for _, f := range fs {
		s.sync.add(f)
	}
	fs = nil
	return nil
}

// putAtomic writes the files at paths each through its own temporary file, renamed
// into place (nested, so that all are written at once), tracked while they exist.
func (s *dirSink) putAtomic(paths []string, write func(ws []io.Writer) error) error {
	ws := make([]io.Writer, len(paths))
	var nest func(i int) error
	nest = func(i int) error {
		if i == len(paths) {
			return write(ws)
		}
		release := s.opt.hold()
		defer release()
		var tmp string
		err := buffer.WriteFileAtomicFile(paths[i], func(f *os.File) error {
			tmp = f.Name()
			s.opt.track(tmp)
			release()
			ws[i] = f
			return nest(i + 1)
		})
		if tmp != "" {
			s.opt.untrack(tmp)
		}
		return err
	}
	return nest(0)
}
