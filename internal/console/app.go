package console

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/internal/apps"
)

// appView is the app page's content.
type appView struct {
	App        *apps.App
	Checks     []conformance.Result
	Accounts   []*apps.Account
	Syncs      []*apps.Sync
	Descriptor string
}

func (c *Console) appPage(w http.ResponseWriter, r *http.Request) error {
	return c.showApp(w, r, http.StatusOK, layout{})
}

func (c *Console) showApp(w http.ResponseWriter, r *http.Request, status int, l layout) error {
	svc, a, err := byPath(c, r, appOf)
	if err != nil {
		return err
	}
	accs, err := svc.Registry.Accounts(r.Context(), a.ID)
	if err != nil {
		return err
	}
	syncs, err := svc.SyncService.Syncs(r.Context(), a.ID)
	if err != nil {
		return err
	}
	pretty, _ := json.MarshalIndent(a.Descriptor, "", "  ")
	d := &appView{App: a, Accounts: accs, Syncs: syncs, Descriptor: string(pretty), Checks: descriptorChecks(r.Context(), a.Descriptor)}
	l.Title, l.Nav = a.Name, "apps"
	return appScreen.show(c, w, r, status, l, d)
}

// descriptorChecks runs the conformance suite's descriptor rules on the
// stored descriptor (served in process, so the app is not called again) and
// returns the failed and warned ones.
func descriptorChecks(ctx context.Context, d *protocol.Descriptor) []conformance.Result {
	body, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/" {
			_, _ = w.Write(body)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message":"not served by the console's descriptor check"}`))
	})
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rep, err := conformance.Run(ctx, conformance.Config{Handler: h, Timeout: 5 * time.Second, TotalTimeout: 10 * time.Second, MaxTypes: 1})
	if err != nil {
		return nil
	}
	var out []conformance.Result
	for _, res := range rep.Results {
		if strings.HasPrefix(res.ID, "descriptor.") && (res.Status == conformance.Failed || res.Status == conformance.Warned) {
			out = append(out, res)
		}
	}
	return out
}

func (c *Console) refreshApp(w http.ResponseWriter, r *http.Request) error {
	svc, a, err := byPath(c, r, appOf)
	if err != nil {
		return err
	}
	if _, err := svc.Registry.RegisterApp(r.Context(), a.URL); err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.showApp(w, r, status, layout{Error: "The descriptor was not read again: " + msg})
		})
	}
	return c.showApp(w, r, http.StatusOK, layout{Notice: "The descriptor was read again."})
}

func (c *Console) deleteApp(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	warns, err := svc.DeleteApp(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return c.appsList(w, r, http.StatusOK, layout{Notice: removedNotice("app", warns)})
}

// removedNotice says that the app or sync was removed, its data kept, and
// what went wrong on the way (the service's warnings).
func removedNotice(what string, warns []string) string {
	notice := "The " + what + " was removed (its data stays in the store)."
	if len(warns) > 0 {
		notice += " " + strings.Join(warns, "; ")
	}
	return notice
}
