package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// stubApp serves, until the test ends, an app of the given id and name
// that asks for no authentication (its account is "account"), answers
// config and schema (JSON) and its data calls with data.
func stubApp(t testing.TB, id, name, config, schema string, data http.HandlerFunc) *httptest.Server {
	t.Helper()
	descriptor := fmt.Sprintf(`{"id":%q,"name":%q,"version":"1","description":"d","website":"https://example.com","authentication":[{"id":"none","name":"None"}],"responsibleFor":{"dataSynchronization":true}}`, id, name)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, descriptor)
		case "/logo":
			w.WriteHeader(http.StatusNoContent)
		case "/validate":
			io.WriteString(w, `{"name":"account"}`)
		case "/api/v1/synchronizer/config":
			io.WriteString(w, config)
		case "/api/v1/synchronizer/schema":
			io.WriteString(w, schema)
		case "/api/v1/synchronizer/data":
			data(w, r)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// schemaApp serves an app with the given config and schema whose data
// pages are empty.
func schemaApp(t testing.TB, config, schema any) *httptest.Server {
	t.Helper()
	cfg, _ := json.Marshal(config)
	sch, _ := json.Marshal(schema)
	return stubApp(t, "wide", "Wide", string(cfg), string(sch), func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"items":[],"synchronizationType":"full"}`)
	})
}

// wideSchema is a config and schema of n types with the given fields each
// (plus id): texts, a select with options, and a relation to the next type.
func wideSchema(n, fields, options int) (map[string]any, map[string]map[string]any) {
	var types []map[string]any
	schema := map[string]map[string]any{}
	var opts []string
	for i := range options {
		opts = append(opts, fmt.Sprint("o", i))
	}
	for i := range n {
		id := fmt.Sprintf("t%03d", i)
		types = append(types, map[string]any{"id": id, "name": "Type " + id})
		fs := map[string]any{"id": map[string]any{"id": "id", "name": "ID", "type": "id"}}
		for j := range fields {
			fid := fmt.Sprintf("f%03d", j)
			f := map[string]any{"id": fid, "name": "Field " + fid, "type": "text"}
			switch {
			case j == 0 && options > 0:
				f["subType"] = "single-select"
				f["options"] = opts
			case j == 1 && n > 1:
				f["relation"] = map[string]any{"cardinality": "many-to-one", "targetType": fmt.Sprintf("t%03d", (i+1)%n)}
			}
			fs[fid] = f
		}
		schema[id] = fs
	}
	return map[string]any{"types": types, "filters": []any{}}, schema
}

// catalogOf describes the app's store types and enums: type -> sorted field names
// with their roles.
func catalogOf(t testing.TB, st *store.Store) map[string][]string {
	t.Helper()
	cat, err := st.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, ty := range cat.Types {
		if !strings.HasPrefix(ty.Name, "wide") {
			continue
		}
		var fs []string
		for _, f := range ty.Fields {
			fs = append(fs, f.Name+":"+f.Role)
		}
		sort.Strings(fs)
		out[ty.Name] = fs
	}
	return out
}

func openTestStore(t testing.TB) *store.Store {
	t.Helper()
	return teststore.Open(t, "sqlite::memory:")
}

// A large schema is mapped in steps of at most schemaBatch changes, each
// its own transaction, with other writes going through between them; a
// mapping stopped midway is completed by the next run, to the same catalog
// as one never stopped.
func TestSchemaMappedInSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, schema := wideSchema(16, 5, 5) // 16 types, 80 fields, 16 enums
	srv := schemaApp(t, cfg, schema)

	whole := openTestStore(t)
	e, err := newEngine(whole, Options{AppURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var steps []int
	e.schemaStepDone = func(n int) error {
		steps = append(steps, n)
		// The write lock is free between the steps: another write commits.
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		return whole.Write(wctx, func(tx *store.Tx) error { return tx.SaveSyncState("probe", []byte(`{}`)) })
	}
	if _, err := e.run(ctx); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range steps {
		if n > schemaBatch {
			t.Errorf("a step held %d schema changes, more than %d", n, schemaBatch)
		}
		total += n
	}
	if want := 16 + 80 + 16; total != want || len(steps) < want/schemaBatch {
		t.Errorf("%d changes in %d steps, want %d in at least %d", total, len(steps), want, want/schemaBatch)
	}
	want := catalogOf(t, whole)
	if len(want) != 32 || len(want["wide/t000"]) != 4+3+5+1 { // types and enums; built-ins, hidden, fields, reverse
		t.Fatalf("mapped catalog: %d types, t000: %v", len(want), want["wide/t000"])
	}

	// Stopped after the second step, then run again.
	broken := openTestStore(t)
	e, _ = newEngine(broken, Options{AppURL: srv.URL})
	errStop := errors.New("stopped on purpose")
	n := 0
	e.schemaStepDone = func(int) error {
		if n++; n == 2 {
			return errStop
		}
		return nil
	}
	if _, err := e.run(ctx); !errors.Is(err, errStop) {
		t.Fatalf("err = %v, want the stop", err)
	}
	if got := catalogOf(t, broken); len(got) == 0 || reflect.DeepEqual(got, want) {
		t.Fatalf("the stopped mapping is not partial: %d types", len(got))
	}
	if _, err := Run(ctx, broken, Options{AppURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if got := catalogOf(t, broken); !reflect.DeepEqual(got, want) {
		t.Errorf("after the resumed mapping:\n%v\nwant\n%v", got, want)
	}
}

// A schema over a limit is refused before anything is written, with an
// error wrapping ErrLimit that names the limit.
func TestSchemaLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                   string
		types, fields, options int
		want                   string
	}{
		{"types", MaxTypes + 1, 1, 0, "MaxTypes"},
		{"fields per type", 1, MaxFieldsPerType + 1, 0, "MaxFieldsPerType"},
		{"fields", MaxFields/MaxFieldsPerType + 1, MaxFieldsPerType - 1, 0, "MaxFields)"},
		{"options", 1, 1, MaxOptions + 1, "MaxOptions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, schema := wideSchema(tc.types, tc.fields, tc.options)
			srv := schemaApp(t, cfg, schema)
			st := openTestStore(t)
			_, err := Run(context.Background(), st, Options{AppURL: srv.URL})
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrLimit naming %s", err, tc.want)
			}
			if got := catalogOf(t, st); len(got) != 0 {
				t.Errorf("%d types mapped", len(got))
			}
		})
	}
}

// A schema answer over MaxAnswer is refused naming the bound, even under a
// larger MaxBody; nothing is mapped.
func TestSchemaAnswerBounded(t *testing.T) {
	t.Parallel()
	cfg, schema := wideSchema(1, 1, 0)
	schema["t000"]["f000"].(map[string]any)["description"] = strings.Repeat("d", MaxAnswer)
	srv := schemaApp(t, cfg, schema)
	st := openTestStore(t)
	_, err := Run(context.Background(), st, Options{AppURL: srv.URL, MaxBody: 4 * MaxAnswer})
	var ae *AppError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), fmt.Sprintf("answer larger than %d bytes", MaxAnswer)) {
		t.Fatalf("err = %v, want the answer refused at %d bytes", err, MaxAnswer)
	}
	if got := catalogOf(t, st); len(got) != 0 {
		t.Errorf("%d types mapped", len(got))
	}
}
