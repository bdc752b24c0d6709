package buffer

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A SyncBatch syncs the files written under one directory together, at Wait, instead
// of one after the other as they are written: convert --all fsynced file by file,
// each fsync waiting for its own file's bytes to reach the disk while nothing else
// was written. Between DeferSync and Wait, [WriteFileAtomicFile] (and WriteFileAtomic)
// of a path under the directory writes, renames and starts the writeback of its file
// but leaves the fsync to Wait, which syncs every file in parallel, and then the
// directories they are in.
//
// So a file under the directory can hold its final name there before its bytes are
// on the disk: the directory must be a temporary one that is renamed into place only
// after Wait returns nil (or removed), as MkdirTempLocked's are, so that the name
// that lasts never holds a half-written file.
type SyncBatch struct {
	dir   string
	mu    sync.Mutex
	paths []string
	done  bool
}

var batches struct {
	sync.Mutex
	m map[string]*SyncBatch // by directory
}

// DeferSync starts a batch for dir (see SyncBatch). Wait ends it; Cancel ends it
// without syncing, when dir is to be removed.
func DeferSync(dir string) *SyncBatch {
	b := &SyncBatch{dir: absPath(dir)}
	batches.Lock()
	defer batches.Unlock()
	if batches.m == nil {
		batches.m = map[string]*SyncBatch{}
	}
	batches.m[b.dir] = b
	return b
}

// batchFor returns the batch whose directory holds path, or nil.
func batchFor(path string) *SyncBatch {
	batches.Lock()
	defer batches.Unlock()
	if len(batches.m) == 0 {
		return nil
	}
	for d := filepath.Dir(absPath(path)); ; d = filepath.Dir(d) {
		if b, ok := batches.m[d]; ok {
			return b
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// Add puts a file written under the batch's directory by other means into the batch.
func (b *SyncBatch) Add(path string) {
	b.mu.Lock()
	b.paths = append(b.paths, absPath(path))
	b.mu.Unlock()
}

// absPath is path made absolute and clean (as it is, if the working directory is
// unknown).
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return filepath.Clean(path)
}

// syncParallel is how many fsyncs Wait runs at once.
const syncParallel = 8

// Wait ends the batch: it fsyncs every file in it, several at once, then the
// directories that hold them (the renames), and returns the first error.
func (b *SyncBatch) Wait() error {
	b.end()
	if !Durable() {
		return nil
	}
	b.mu.Lock()
	paths := b.paths
	b.mu.Unlock()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan string)
	)
	for range min(syncParallel, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				if err := syncPath(p); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	dirs := map[string]bool{}
	for _, p := range paths {
		next <- p
		for d := filepath.Dir(p); d != b.dir && strings.HasPrefix(d, b.dir); d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	for d := range dirs {
		syncDir(d)
	}
	syncDir(b.dir)
	return nil
}

// Cancel ends the batch without syncing anything (its directory is to be removed).
func (b *SyncBatch) Cancel() { b.end() }

func (b *SyncBatch) end() {
	batches.Lock()
	defer batches.Unlock()
	if !b.done && batches.m[b.dir] == b {
		delete(batches.m, b.dir)
	}
	b.done = true
}

// syncPath fsyncs the file at path through a new descriptor (Linux and the BSDs sync
// the file's data whatever descriptor asks).
func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = Sync(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncFile is f.Sync, counted by a test.
var syncFile = (*os.File).Sync
