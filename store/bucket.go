package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// ErrNotExist is wrapped by the errors for a missing bucket or object.
var ErrNotExist = errors.New("does not exist")

// ErrChecksum is wrapped by the error of an upload whose bytes, as the store received
// them, do not match the checksum it was given.
var ErrChecksum = errors.New("does not match its checksum")

// ErrChanged is wrapped by the error of a read from an object that was replaced or
// changed size since it was opened.
var ErrChanged = errors.New("changed since it was opened")

// Attrs describe an object.
type Attrs struct {
	Key      string
	Size     int64
	Version  string            // an ETag or generation: changes when the object does
	Metadata map[string]string // user metadata, keys lower case
	// CRC32C is the CRC-32C (Castagnoli, 4 bytes big-endian) that the service
	// computed from the object's bytes (GCS's crc32c; S3's x-amz-checksum-crc32c of an
	// object uploaded with one), or nil where it gives none: unlike Metadata, which the
	// uploader chose, it describes the bytes.
	CRC32C []byte
}

// ServiceCRC32C is a.CRC32C as a number, and whether the service gave one.
func (a Attrs) ServiceCRC32C() (uint32, bool) {
	if len(a.CRC32C) != 4 {
		return 0, false
	}
	return binary.BigEndian.Uint32(a.CRC32C), true
}

// backend is one kind of store, tried once per call: Bucket adds the retries and
// names the object in its errors.
type backend interface {
	stat(ctx context.Context, key string) (Attrs, error)
	// readAt fills p from off in the object a.Key, which must still be of a's
	// version (when not empty) and size, else ErrChanged; a short read is an error.
	// n is how many of p's first bytes it filled, all of them but for an error.
	readAt(ctx context.Context, a Attrs, p []byte, off int64) (n int, err error)
	// put writes the object whole; crc32c, when not nil, is the CRC-32C (Castagnoli,
	// 4 big-endian bytes) of its bytes, which the store checks (refusing the upload
	// when they differ) and keeps.
	put(ctx context.Context, key string, r io.Reader, size int64, meta map[string]string, crc32c []byte) error
	list(ctx context.Context, prefix string) ([]Attrs, error)
	remove(ctx context.Context, key string) error
	// bucketExists tells a missing bucket from a missing object after a 404.
	bucketExists(ctx context.Context) (bool, error)
}

// Bucket is a bucket of an object store, or the local file system.
type Bucket struct {
	loc   Location // Scheme and Bucket
	be    backend
	Retry Retry // how reads are retried
}

// Open returns the bucket that holds the object at name (a URL or a path) and its
// key. Nothing is contacted yet: a missing bucket or bad credentials show at the
// first call.
func Open(ctx context.Context, name string) (*Bucket, string, error) {
	loc, err := Parse(name)
	if err != nil {
		return nil, "", err
	}
	b := &Bucket{loc: Location{Scheme: loc.Scheme, Bucket: loc.Bucket}, Retry: DefaultRetry}
	switch loc.Scheme {
	case "file":
		b.be = fileBackend{}
	case "s3":
		b.be, err = newS3(loc.Bucket)
	case "gs":
		b.be, err = newGCS(ctx, loc.Bucket)
	}
	if err != nil {
		return nil, "", &Error{Name: name, Err: err}
	}
	return b, loc.Key, nil
}

// URL names key in b as a user wrote it.
func (b *Bucket) URL(key string) string {
	l := b.loc
	l.Key = key
	return l.String()
}

// Local reports whether b is the local file system (keys are paths).
func (b *Bucket) Local() bool { return b.loc.Scheme == "file" }

func (b *Bucket) errf(key string, err error) error {
	return &Error{Name: b.URL(key), Err: err}
}

// Stat returns the attributes of the object key.
func (b *Bucket) Stat(ctx context.Context, key string) (Attrs, error) {
	var a Attrs
	err := b.Retry.do(ctx, &call{what: b.URL(key), read: !b.Local()}, func(ctx context.Context) error {
		var err error
		a, err = b.be.stat(ctx, key)
		return err
	})
	if errors.Is(err, ErrNotExist) && !b.Local() {
		if ok, berr := b.be.bucketExists(ctx); berr == nil && !ok {
			err = fmt.Errorf("bucket %q %w", b.loc.Bucket, ErrNotExist)
		}
	}
	if err != nil {
		return Attrs{}, b.errf(key, err)
	}
	return a, nil
}

// ReadAll reads the whole object key (for small objects: headers, manifests).
func (b *Bucket) ReadAll(ctx context.Context, key string) ([]byte, error) {
	o, err := b.Object(ctx, key)
	if err != nil {
		return nil, err
	}
	p := make([]byte, o.Size())
	if _, err := o.ReadAt(p, 0); err != nil {
		return nil, err
	}
	return p, nil
}

// Put writes the object key whole from r, which holds size bytes, with user
// metadata meta. The object appears under key only once complete.
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, size int64, meta map[string]string) error {
	if err := b.be.put(ctx, key, r, size, meta, nil); err != nil {
		return b.errf(key, err)
	}
	return nil
}

// PutFile writes the object key whole from the first size bytes of r (a local
// file, say), retried as reads are: each try reads r again from the start.
func (b *Bucket) PutFile(ctx context.Context, key string, r io.ReaderAt, size int64, meta map[string]string) error {
	return b.PutFileCRC32C(ctx, key, r, size, meta, nil)
}

// PutFileCRC32C is PutFile with the CRC-32C (Castagnoli) of the bytes, 4 bytes
// big-endian, computed where they were made: the store checks the bytes it receives
// against it and refuses the upload when they differ (S3's x-amz-checksum-crc32c,
// GCS's crc32c; the file system checks it before the rename), so nothing changed on
// the way is kept. That refusal is an error wrapping ErrChecksum.
func (b *Bucket) PutFileCRC32C(ctx context.Context, key string, r io.ReaderAt, size int64, meta map[string]string, crc32c []byte) error {
	if crc32c != nil && len(crc32c) != 4 {
		return b.errf(key, fmt.Errorf("a CRC-32C has 4 bytes, not %d", len(crc32c)))
	}
	err := b.Retry.do(ctx, &call{what: b.URL(key)}, func(ctx context.Context) error {
		return b.be.put(ctx, key, io.NewSectionReader(r, 0, size), size, meta, crc32c)
	})
	if err != nil {
		return b.errf(key, err)
	}
	return nil
}

// List returns the objects whose keys start with prefix, sorted by key.
func (b *Bucket) List(ctx context.Context, prefix string) ([]Attrs, error) {
	var as []Attrs
	err := b.Retry.do(ctx, &call{what: b.URL(prefix), read: !b.Local()}, func(ctx context.Context) error {
		var err error
		as, err = b.be.list(ctx, prefix)
		return err
	})
	if err != nil {
		return nil, b.errf(prefix, err)
	}
	return as, nil
}

// Delete removes the object key.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	if err := b.Retry.do(ctx, &call{what: b.URL(key)}, func(ctx context.Context) error { return b.be.remove(ctx, key) }); err != nil {
		return b.errf(key, err)
	}
	return nil
}

// Object is an object opened for ranged reads: its size and version are read once,
// and every read checks that the object is still that version.
type Object struct {
	b     *Bucket
	ctx   context.Context
	attrs Attrs
	seen  atomic.Pointer[func(off int64, p []byte)] // see Observe
}

// Object opens key for ranged reads.
func (b *Bucket) Object(ctx context.Context, key string) (*Object, error) {
	a, err := b.Stat(ctx, key)
	if err != nil {
		return nil, err
	}
	a.Key = key
	return &Object{b: b, ctx: ctx, attrs: a}, nil
}

// Size is the object's size when it was opened.
func (o *Object) Size() int64 { return o.attrs.Size }

// Attrs are the object's attributes when it was opened.
func (o *Object) Attrs() Attrs { return o.attrs }

// URL names the object.
func (o *Object) URL() string { return o.b.URL(o.attrs.Key) }

// ReadAt reads len(p) bytes from off, retrying as o's bucket says. Reading past the
// end is io.EOF, as for a file.
func (o *Object) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &Error{Name: o.URL(), Err: fmt.Errorf("negative offset %d", off)}
	}
	if off >= o.attrs.Size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n, short := len(p), false
	if int64(n) > o.attrs.Size-off {
		n, short = int(o.attrs.Size-off), true
	}
	if n > 0 {
		// A try that fails after bringing half of what it asked for, or resumeBytes,
		// is not counted as a failure: the read resumes after those bytes, with its
		// tries afresh, so a connection that keeps dropping mid-body still ends it.
		// Any other failed try is made again from the same byte.
		done := 0
		c := &call{what: fmt.Sprintf("%s: bytes %d–%d", o.URL(), off, off+int64(n)), read: !o.b.Local()}
		for {
			err := o.b.Retry.do(o.ctx, c, func(ctx context.Context) error {
				k, err := o.b.be.readAt(ctx, o.attrs, p[done:n], off+int64(done))
				if err == nil {
					done = n
				} else if k > 0 && k >= min(resumeBytes, (n-done)/2) {
					done += k
					return progressed{err} // resumed at once below
				}
				return err
			})
			if _, ok := err.(progressed); ok {
				continue
			}
			if err != nil {
				return 0, &Error{Name: o.URL(), Err: fmt.Errorf("bytes %d–%d of %d: %w", off, off+int64(n), o.attrs.Size, err)}
			}
			break
		}
		if f := o.seen.Load(); f != nil {
			(*f)(off, p[:n])
		}
	}
	if short {
		return n, io.EOF
	}
	return n, nil
}

// resumeBytes is enough for a failed try of ReadAt to have brought for the read to
// go on with its tries afresh.
const resumeBytes = 1 << 20

// progressed is a failed try of ReadAt that brought enough to go on afresh.
type progressed struct{ error }

// readBody fills p from a response body, telling ctx's stall timeout of every
// byte that comes; a body that ends early is io.ErrUnexpectedEOF. n is how many
// bytes it filled.
func readBody(ctx context.Context, body io.Reader, p []byte) (n int, err error) {
	received(ctx) // the headers
	for n < len(p) && err == nil {
		var k int
		k, err = body.Read(p[n:])
		if k > 0 {
			received(ctx)
		}
		n += k
	}
	if n == len(p) {
		return n, nil
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // an empty body where bytes were due: dropped
	}
	return n, err
}

// Observe has f called with the bytes of every read of o that succeeds from then on
// (p holds the object's bytes from off; f must not keep or change p), from the
// goroutine that read them: readers of the same bytes for other purposes (a
// fingerprint of sampled blocks, say) can take them from reads made anyway rather
// than ask the store again. f must be safe for concurrent use; nil stops it.
func (o *Object) Observe(f func(off int64, p []byte)) {
	if f == nil {
		o.seen.Store(nil)
		return
	}
	o.seen.Store(&f)
}

// Range is a byte range of an object and where its bytes go.
type Range struct {
	Off int64
	Buf []byte
}

// ReadRanges reads every range, up to inFlight of them at once.
func (o *Object) ReadRanges(rs []Range, inFlight int) error {
	if inFlight < 1 {
		inFlight = 1
	}
	errs := make(chan error, len(rs))
	sem := make(chan struct{}, inFlight)
	for _, r := range rs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			_, err := o.ReadAt(r.Buf, r.Off)
			errs <- err
		}()
	}
	var first error
	for range rs {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// checkContentRange checks an HTTP response's Content-Range against the request
// for n bytes from off of an object of size bytes (when opened): a total other than
// size is ErrChanged; another range, a malformed one, or none at all for a range not
// at the start (whose bytes a whole object's answer would not begin with) is a
// RangeError.
func checkContentRange(cr string, off int64, n int, size int64) error {
	bad := &RangeError{Off: off, Len: int64(n), Size: size, ContentRange: quoteControls(cr)}
	if cr == "" {
		if off == 0 {
			return nil
		}
		return bad
	}
	first, last, total, err := parseContentRange(cr)
	if err != nil {
		return bad
	}
	if total >= 0 && total != size {
		return fmt.Errorf("%w (now %d bytes, was %d)", ErrChanged, total, size)
	}
	if first != off || last != off+int64(n)-1 {
		return bad
	}
	return nil
}

// parseContentRange parses "bytes first-last/total" (total -1 for "*"): decimal
// numbers without signs that fit an int64, first ≤ last < total.
func parseContentRange(cr string) (first, last, total int64, err error) {
	rest, ok := strings.CutPrefix(cr, "bytes ")
	rg, tot, ok2 := strings.Cut(rest, "/")
	a, b, ok3 := strings.Cut(rg, "-")
	if !ok || !ok2 || !ok3 {
		return 0, 0, 0, fmt.Errorf("Content-Range %q is not bytes FIRST-LAST/TOTAL", cr)
	}
	num := func(s string) (int64, bool) {
		if s == "" || strings.Trim(s, "0123456789") != "" {
			return 0, false
		}
		v, err := strconv.ParseInt(s, 10, 64)
		return v, err == nil
	}
	first, ok = num(a)
	last, ok2 = num(b)
	total, ok3 = -1, true
	if tot != "*" {
		total, ok3 = num(tot)
	}
	if !ok || !ok2 || !ok3 || first > last || (total >= 0 && last >= total) {
		return 0, 0, 0, fmt.Errorf("Content-Range %q is not bytes FIRST-LAST/TOTAL with FIRST ≤ LAST < TOTAL", cr)
	}
	return first, last, total, nil
}

// quoteControls is s with its control and format characters (terminal escapes,
// carriage returns, bidirectional overrides) and invalid UTF-8 written as Go
// escapes (\x1b), so that text a server sent prints as it is.
func quoteControls(s string) string {
	if strings.IndexFunc(s, needsQuote) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case needsQuote(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// Escape is text a server sent (a key of a listing, say) with its control and
// format characters and invalid UTF-8 written as Go escapes (\x1b), as the errors
// of this package print such text.
func Escape(s string) string { return quoteControls(s) }

func needsQuote(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// trimKey is key without a leading "/", as object stores name them.
func trimKey(key string) string { return strings.TrimPrefix(key, "/") }
