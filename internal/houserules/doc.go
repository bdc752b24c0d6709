// Package houserules holds no code: its tests read the module's own Go source and fail
// where it breaks a rule of the house that neither the compiler nor go vet checks:
//
//   - no function is longer than 100 lines, outside the SIMD kernels of package
//     simd and their generator (TestFunctionLength);
//   - no library names a command-line flag: string literals such as "--to" belong to
//     cmd/ and python/, which map a library's typed errors to flags (TestNoFlagLiterals);
//   - no library rewrites another error's text: none imports internal/edgetext, the
//     command's wording (TestEdgeTextAtEdge), and none edits x.Error() with package
//     strings' or regexp's replacements (TestNoErrorTextRewrite);
//   - no struct of the engine (simd, relayout) holds more than 20 function-valued
//     fields: a kernel kind is its own type, and kernels keyed by type or width are one
//     table (TestFuncFields).
//
// Each rule has an allowlist of the places that still break it while they are being
// fixed; an entry that no longer breaks the rule is reported, so the lists only shrink.
package houserules
