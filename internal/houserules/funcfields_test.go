package houserules

import (
	"go/ast"
	"path"
	"testing"
)

// maxFuncFields bounds the function-valued fields of one struct type in the engine's
// packages: a kernel kind is a type holding its own functions, and a set of kernels
// keyed by type or width is one table field, not a field a kernel.
const maxFuncFields = 20

// TestFuncFields fails for each struct type of packages simd and relayout (and the
// packages under them) with more than maxFuncFields fields of function type. A field
// counts when its type is a func literal type or a named func type of the module
// (simd.RowsFunc, say); an array, slice or map of functions is one table and counts
// once.
func TestFuncFields(t *testing.T) {
	files := moduleSource(t)
	funcTypes := moduleFuncTypes(files)
	for _, f := range files {
		if !underAny(f.path, "simd", "relayout") {
			continue
		}
		pkg := path.Dir(f.path)
		for _, d := range f.ast.Decls {
			for _, spec := range typeSpecs(d) {
				st, ok := spec.Type.(*ast.StructType)
				if !ok {
					continue
				}
				n := 0
				for _, field := range st.Fields.List {
					if isFuncType(field.Type, pkg, funcTypes) {
						n += max(len(field.Names), 1)
					}
				}
				if n > maxFuncFields {
					t.Errorf("%s:%d: struct %s has %d function-valued fields, over %d: give each kernel kind its own type, or key a set of kernels in one table",
						f.path, fset.Position(spec.Pos()).Line, spec.Name.Name, n, maxFuncFields)
				}
			}
		}
	}
}

// typeSpecs is the type specs of a declaration (none for a func or var).
func typeSpecs(d ast.Decl) []*ast.TypeSpec {
	g, ok := d.(*ast.GenDecl)
	if !ok {
		return nil
	}
	var specs []*ast.TypeSpec
	for _, s := range g.Specs {
		if ts, ok := s.(*ast.TypeSpec); ok {
			specs = append(specs, ts)
		}
	}
	return specs
}

// moduleFuncTypes is the set of the module's named func types, each as its package's
// folder (slash-separated, from the module root) and name: "simd.RowsFunc" is
// {"simd", "RowsFunc"}.
func moduleFuncTypes(files []sourceFile) map[[2]string]bool {
	types := make(map[[2]string]bool)
	for _, f := range files {
		for _, d := range f.ast.Decls {
			for _, spec := range typeSpecs(d) {
				if _, ok := spec.Type.(*ast.FuncType); ok {
					types[[2]string{path.Dir(f.path), spec.Name.Name}] = true
				}
			}
		}
	}
	return types
}

// isFuncType reports whether the type expression e, written in the package of folder
// pkg, is a function type or a table (array, slice, map) of them. A qualified name
// pkg.T is looked up by the package's name as the last element of its folder, which
// holds for every package of this module.
func isFuncType(e ast.Expr, pkg string, funcTypes map[[2]string]bool) bool {
	switch x := e.(type) {
	case *ast.FuncType:
		return true
	case *ast.ParenExpr:
		return isFuncType(x.X, pkg, funcTypes)
	case *ast.ArrayType:
		return isFuncType(x.Elt, pkg, funcTypes)
	case *ast.MapType:
		return isFuncType(x.Value, pkg, funcTypes)
	case *ast.Ident:
		return funcTypes[[2]string{pkg, x.Name}]
	case *ast.SelectorExpr:
		q, ok := x.X.(*ast.Ident)
		if !ok {
			return false
		}
		for k := range funcTypes {
			if path.Base(k[0]) == q.Name && k[1] == x.Sel.Name {
				return true
			}
		}
	}
	return false
}
