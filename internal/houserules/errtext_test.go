package houserules

import (
	"go/ast"
	"strconv"
	"strings"
	"testing"
)

// edgeText is the package that words the libraries' errors for the command and the
// Python package, rewriting their text where it must (and its subpackages).
const edgeText = "github.com/tpulayout/tpulayout/internal/edgetext"

// atEdge reports whether the file at p may rewrite an error's text: it belongs to the
// command, the Python package, or edgetext itself.
func atEdge(p string) bool { return underAny(p, "cmd", "python", "internal/edgetext") }

// TestEdgeTextAtEdge fails for each Go file outside cmd/ and python/ that imports
// internal/edgetext: a library returns its errors as values and words them by their
// fields, and only the edge rewrites another error's text.
func TestEdgeTextAtEdge(t *testing.T) {
	for _, f := range moduleSource(t) {
		if atEdge(f.path) {
			continue
		}
		for _, imp := range f.ast.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err == nil && (path == edgeText || strings.HasPrefix(path, edgeText+"/")) {
				t.Errorf("%s:%d: imports %s, the command's wording: word an error by its fields (errors.As) instead",
					f.path, fset.Position(imp.Pos()).Line, path)
			}
		}
	}
}

// rewrites are the functions and methods that edit a string (package strings', and
// regexp's replacements).
var rewrites = map[string]bool{
	"ReplaceAll": true, "Replace": true, "TrimPrefix": true, "TrimSuffix": true, "Trim": true,
	"TrimLeft": true, "TrimRight": true, "CutPrefix": true, "CutSuffix": true,
	"ReplaceAllString": true, "ReplaceAllLiteralString": true,
}

// TestNoErrorTextRewrite fails for each call outside cmd/, python/ and
// internal/edgetext that edits an error's text, such as
// strings.TrimPrefix(err.Error(), "layout: "): a message quotes a cause by its typed
// value's fields, or whole.
func TestNoErrorTextRewrite(t *testing.T) {
	for _, f := range moduleSource(t) {
		if atEdge(f.path) {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !rewrites[sel.Sel.Name] {
				return true
			}
			for _, a := range call.Args {
				if isErrorCall(a) {
					t.Errorf("%s:%d: %s edits an error's text: quote the error by its fields (errors.As) or whole",
						f.path, fset.Position(call.Pos()).Line, sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// isErrorCall reports whether e is a call x.Error() with no arguments.
func isErrorCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Error"
}
