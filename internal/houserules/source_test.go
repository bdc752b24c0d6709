package houserules

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// sourceFile is one non-test Go file of the module, parsed.
type sourceFile struct {
	path string // slash-separated, relative to the module root
	ast  *ast.File
}

var (
	parseOnce sync.Once
	parsed    []sourceFile
	parseErr  error
	fset      = token.NewFileSet()
)

// moduleSource parses every non-test .go file of the module once for all the tests of
// the package: all but testdata folders, folders that the go command ignores (named
// with a leading '.' or '_') and nested modules.
func moduleSource(t *testing.T) []sourceFile {
	t.Helper()
	parseOnce.Do(func() { parsed, parseErr = parseModule() })
	if parseErr != nil {
		t.Fatal(parseErr)
	}
	return parsed
}

func parseModule() ([]sourceFile, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	var files []sourceFile
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p == root {
				return nil
			}
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, sourceFile{path: filepath.ToSlash(rel), ast: f})
		return nil
	})
	return files, err
}

// moduleRoot is the folder of the go.mod of module github.com/tpulayout/tpulayout,
// found upward from the test's working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/tpulayout/tpulayout\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fs.ErrNotExist
		}
		dir = parent
	}
}

// underAny reports whether the slash-separated path p lies in one of the folders dirs.
func underAny(p string, dirs ...string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(p, d+"/") })
}
