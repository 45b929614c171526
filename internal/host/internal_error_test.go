package host_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// An internal failure of a command (here: the type's table vanished under
// the store) answers platform.error/internal to the client, and the cause
// reaches the host's log.
func TestInternalCommandErrorsAreLogged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := teststore.Open(t, "sqlite::memory:")
	logs := &testkit.Buffer{}
	const token = "internal-error-test-token-0123456789"
	h, err := host.New(ctx, host.Config{Store: st, Token: token, AdminEmail: adminEmail, AdminPassword: adminPass,
		PasswordCost: 4, Logger: zerolog.New(logs), Notice: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, host: h, logs: logs}
	e.srvFrom(h)
	e.commands(token, createNote)
	cat, err := st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var table string
	for _, ty := range cat.Types {
		if ty.Name == "Notes/Note" {
			table = ty.Table
		}
	}
	if table == "" {
		t.Fatal("no table for Notes/Note in the catalog")
	}
	if _, err := st.DB().ExecContext(ctx, "DROP TABLE "+table); err != nil {
		t.Fatal(err)
	}
	r := e.do("POST", "/api/commands", token, `[{"command":"platform.entity/query","args":{"query":{"q/from":"Notes/Note","q/select":["Notes/name"]}}}]`)
	if r.code != 200 || !strings.Contains(string(r.raw), `"platform.error/internal"`) || strings.Contains(string(r.raw), table) {
		t.Fatalf("answer = %d %s", r.code, r.raw)
	}
	if !strings.Contains(logs.String(), "command failed internally") || !strings.Contains(logs.String(), "platform.entity/query") {
		t.Fatalf("the cause did not reach the log:\n%s", logs.String())
	}
}
