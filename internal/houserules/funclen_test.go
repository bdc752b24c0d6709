package houserules

import (
	"fmt"
	"go/ast"
	"testing"
)

// maxFuncLines bounds a function from its func keyword to its closing brace.
const maxFuncLines = 100

// TestFunctionLength fails for each function of the module longer than maxFuncLines,
// but for the SIMD kernels of package simd, long for speed, and their generator.
func TestFunctionLength(t *testing.T) {
	for _, f := range moduleSource(t) {
		if underAny(f.path, "simd") {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			n := end.Line - start.Line + 1
			if n <= maxFuncLines {
				continue
			}
			t.Errorf("%s:%d: %s is %d lines, over %d: split it into steps named for what they do",
				f.path, start.Line, funcName(fn), n, maxFuncLines)
		}
	}
}

// funcName is Name for a function and Recv.Name for a method (Recv without its '*' and
// type parameters).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fmt.Sprintf("%T.%s", typ, fn.Name.Name)
}
