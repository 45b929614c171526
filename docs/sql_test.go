package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFixedSQLInOneFilePerService checks what docs/architecture.md says of
// the host's services: each keeps its fixed SQL in one file, and no other
// file of its package holds a string that starts a statement.
func TestFixedSQLInOneFilePerService(t *testing.T) {
	t.Parallel()
	statement := regexp.MustCompile(`(?i)^\s*(SELECT|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b`)
	for dir, sqlFile := range map[string]string{
		"../internal/apps":      "queries.go",
		"../internal/auth":      "queries.go",
		"../internal/documents": "store.go",
	} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		fset := token.NewFileSet()
		for _, path := range files {
			if filepath.Base(path) == sqlFile || strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && statement.MatchString(s) {
					t.Errorf("%s: SQL outside %s: %.60q", fset.Position(lit.Pos()), sqlFile, s)
				}
				return true
			})
		}
	}
}
