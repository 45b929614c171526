package syncer_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// dataCall is one data request as the fake app received it.
type dataCall struct {
	RequestedType      string          `json:"requestedType"`
	Types              []string        `json:"types"`
	Filter             json.RawMessage `json:"filter"`
	Account            map[string]any  `json:"account"`
	Pagination         json.RawMessage `json:"pagination"`
	LastSynchronizedAt *string         `json:"lastSynchronizedAt"`
	OperationID        string          `json:"operationId"`
	// ctx is the request's context: done when the engine gives up on it.
	ctx context.Context
}

// fakeApp is a hand-written app whose answers a test sets: it misbehaves
// on purpose where the test says so.
type fakeApp struct {
	mu         sync.Mutex
	descriptor string
	config     string
	schema     string
	// data answers a data request: status and body.
	data     func(c dataCall) (int, string)
	validate func(fields map[string]any) (int, string)
	// schemaFor, when set, answers a schema request for these types.
	schemaFor func(types []string) (int, string)
	calls     []dataCall
	srv       *httptest.Server
}

const defaultDescriptor = `{"id":"fake","name":"Fake","version":"1","description":"d","website":"https://example.com",
	"authentication":[{"id":"none","name":"None"}],"sources":[],"responsibleFor":{"dataSynchronization":true}}`

func newFakeApp(t testing.TB, schema string, data func(c dataCall) (int, string)) *fakeApp {
	t.Helper()
	a := &fakeApp{descriptor: defaultDescriptor, schema: schema, data: data,
		config: `{"types":[{"id":"item","name":"Items"}],"filters":[]}`}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *fakeApp) set(fn func(a *fakeApp)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fn(a)
}

func (a *fakeApp) dataCalls() []dataCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]dataCall(nil), a.calls...)
}

func (a *fakeApp) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	desc, cfg, schema, data, validate, schemaFor := a.descriptor, a.config, a.schema, a.data, a.validate, a.schemaFor
	a.mu.Unlock()
	reply := func(status int, s string) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, s)
	}
	switch r.URL.Path {
	case "/":
		reply(200, desc)
	case "/logo":
		w.WriteHeader(http.StatusNoContent)
	case "/validate":
		var req struct {
			Fields map[string]any `json:"fields"`
		}
		json.Unmarshal(body, &req)
		if validate != nil {
			reply(validate(req.Fields))
			return
		}
		reply(200, `{"name":"fake account"}`)
	case "/api/v1/synchronizer/config":
		reply(200, cfg)
	case "/api/v1/synchronizer/schema":
		if schemaFor != nil {
			var req struct {
				Types []string `json:"types"`
			}
			json.Unmarshal(body, &req)
			reply(schemaFor(req.Types))
			return
		}
		reply(200, schema)
	case "/api/v1/synchronizer/data":
		var c dataCall
		if err := json.Unmarshal(body, &c); err != nil {
			reply(400, `{"message":"bad body"}`)
			return
		}
		c.ctx = r.Context()
		a.mu.Lock()
		a.calls = append(a.calls, c)
		a.mu.Unlock()
		status, body := data(c)
		if status == hangStatus {
			return // the engine gave up on this request
		}
		reply(status, body)
	default:
		reply(404, `{"message":"not found"}`)
	}
}

// rows reads every entity of a store type as app id -> field values (the
// entity's fields named by their last path segment, relations as the
// related entities' app ids).
func rows(t testing.TB, st *store.Store, typeName string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	ids := teststore.IDs(t, st, typeName)
	err := st.Write(context.Background(), func(tx *store.Tx) error {
		cat := tx.Catalog()
		ty := cat.Type(typeName)
		if ty == nil {
			t.Fatalf("no type %s in %v", typeName, cat.TypeNames())
		}
		for _, id := range ids {
			e, err := tx.Read(ty, id)
			if err != nil {
				return err
			}
			m := map[string]any{}
			var appID string
			for _, f := range ty.Fields {
				v := e[f.Name]
				name := f.Name
				if i := lastSlash(name); i >= 0 {
					name = name[i+1:]
				}
				switch {
				case f.Role != store.RolePrimitive && f.Role != store.RoleRelation:
					continue
				case name == "app-id":
					appID, _ = v.(string)
					continue
				case name == "run", name == "hash":
					continue
				}
				if ref, ok := v.(map[string]any); ok && f.Role == store.RoleRelation {
					target := cat.Target(f)
					if target.Kind == store.KindEnum {
						opt, err := tx.Read(target, ref["platform/id"].(string))
						if err != nil {
							return err
						}
						v = opt["enum/name"]
					} else if target.Name != store.DocumentType {
						tr, err := tx.Read(target, ref["platform/id"].(string))
						if err != nil {
							return err
						}
						for k, x := range tr {
							if lastSlashName(k) == "app-id" {
								v = x
							}
						}
					} else {
						continue
					}
				}
				if v != nil {
					m[name] = v
				}
			}
			out[appID] = m
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// links counts the links of a many-to-many field.
func links(t testing.TB, st *store.Store, typeName, field string) int {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := cat.Type(typeName).Field(field)
	var n int
	if err := st.DB().QueryRow("SELECT COUNT(*) FROM " + f.Link).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

func lastSlashName(s string) string { return s[lastSlash(s)+1:] }

// fastRetry keeps retry tests quick.
var fastRetry = syncer.Retry{Attempts: 3, Base: 1, Max: 1}
