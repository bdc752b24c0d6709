package houserules

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"testing"
)

// flagLiteral matches a string that names a command-line flag anywhere, such as "--to",
// "--block has 3 entries" or "a sharded conversion (convert --mesh)": a flag starts the
// string or follows a space, a quote or an opening parenthesis.
var flagLiteral = regexp.MustCompile(`(^|[\s"'(` + "`" + `])--[A-Za-z]`)

// TestNoFlagLiterals fails for each string literal that names a command-line flag
// in a Go file outside cmd/ and python/: a library speaks Go (an error's fields name
// what is wrong), and only the command and the Python binding speak flags.
func TestNoFlagLiterals(t *testing.T) {
	for _, f := range moduleSource(t) {
		if underAny(f.path, "cmd", "python") {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !flagLiteral.MatchString(s) {
				return true
			}
			t.Errorf("%s:%d: %s names a command-line flag: return a typed error whose fields say what is wrong, and let cmd/ name the flag",
				f.path, fset.Position(lit.Pos()).Line, lit.Value)
			return true
		})
	}
}
