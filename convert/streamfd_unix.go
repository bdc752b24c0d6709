//go:build unix

package convert

import (
	"os"
	"syscall"
)

// openFD returns a file writing to descriptor fd, which the caller keeps: a
// close-on-exec duplicate of it, sharing its offset and append mode, that close
// releases. (An *os.File of fd itself would close the caller's descriptor when it
// is garbage collected.)
func openFD(fd int, name string) (f *os.File, close func() error, err error) {
	syscall.ForkLock.RLock()
	nfd, err := syscall.Dup(fd)
	if err == nil {
		syscall.CloseOnExec(nfd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, &os.PathError{Op: "dup", Path: name, Err: err}
	}
	f = os.NewFile(uintptr(nfd), name)
	return f, f.Close, nil
}
