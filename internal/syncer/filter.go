package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/daterange"
)

// ErrFilterRejected is wrapped by the error of a filter that the app (or
// its declaration) refuses.
var ErrFilterRejected = errors.New("filter rejected")

// buildFilter turns the user's KEY=VALUE strings into the filter object sent
// to the app, typed after the declared filters: list values are checked
// against (and titles mapped through) the datalist, date statements are
// parsed into {_min, _max}.
func buildFilter(ctx context.Context, c *client, cfg *protocol.ConfigResponse, types []string, account map[string]any, given map[string][]string, now time.Time) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	byID := map[string]protocol.Filter{}
	var ids []string
	for _, f := range cfg.Filters {
		byID[f.ID] = f
		ids = append(ids, f.ID)
	}
	keys := slices.Sorted(maps.Keys(given))
	for _, k := range keys {
		if _, ok := byID[k]; !ok {
			return nil, fmt.Errorf("%w: the app has no filter %q (it has: %s)", ErrFilterRejected, k, strings.Join(ids, ", "))
		}
	}
	// Filters in declaration order, so that a datalist's dependsOn sees the
	// values of the filters it depends on.
	for _, f := range cfg.Filters {
		vals, ok := given[f.ID]
		if !ok {
			continue
		}
		v, err := filterValue(ctx, c, f, vals, types, account, out, now)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("filter %s: %w", f.ID, err)
		}
		if raw, ok := v.(json.RawMessage); ok {
			b = raw
		}
		out[f.ID] = b
	}
	for _, f := range cfg.Filters {
		if _, ok := out[f.ID]; !ok && !f.Optional && f.Type != "link" && f.Type != "oauth" {
			return nil, fmt.Errorf("%w: filter %s (%s) is required: pass --filter %s=VALUE", ErrFilterRejected, f.ID, f.Title, f.ID)
		}
	}
	return out, nil
}

func filterValue(ctx context.Context, c *client, f protocol.Filter, vals []string, types []string, account map[string]any, sofar map[string]json.RawMessage, now time.Time) (any, error) {
	one := vals[len(vals)-1]
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: filter %s (%s): %s", ErrFilterRejected, f.ID, f.Title, fmt.Sprintf(format, a...))
	}
	switch f.Type {
	case "number":
		n, err := strconv.ParseFloat(one, 64)
		if err != nil {
			return nil, bad("want a number, got %q", one)
		}
		return n, nil
	case "bool":
		b, ok := parseBool(one)
		if !ok {
			return nil, bad("want true or false, got %q", one)
		}
		return b, nil
	case "date":
		r, err := daterange.Parse(one, now)
		if err != nil {
			return nil, bad("%v", err)
		}
		b, err := r.WireJSON()
		if err != nil {
			return nil, bad("%v", err)
		}
		return json.RawMessage(b), nil
	case "datebox":
		d, err := daterange.ParseDay(one, now)
		if err != nil {
			return nil, bad("%v", err)
		}
		return d.Format(time.DateOnly), nil
	case "list", "multidropdown":
		var items []string
		for _, v := range vals {
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					items = append(items, p)
				}
			}
		}
		if f.Datalist {
			opts, err := datalist(ctx, c, f, types, account, sofar)
			if err != nil {
				return nil, err
			}
			for i, it := range items {
				v, ok := opts[it]
				if !ok {
					known := slices.Sorted(maps.Keys(opts))
					if len(known) > 20 {
						known = append(known[:20], "…")
					}
					return nil, bad("%q is not one of the app's values (%s)", it, strings.Join(known, ", "))
				}
				items[i] = v
			}
		}
		if f.Type == "list" {
			if len(items) != 1 {
				return nil, bad("want one value, got %d", len(items))
			}
			return items[0], nil
		}
		if items == nil {
			items = []string{}
		}
		return items, nil
	}
	return one, nil
}

// datalist fetches a list filter's values: value and title both map to the
// value to send.
func datalist(ctx context.Context, c *client, f protocol.Filter, types []string, account map[string]any, sofar map[string]json.RawMessage) (map[string]string, error) {
	dependsOn := map[string]json.RawMessage{}
	for _, id := range f.DatalistRequires {
		if v, ok := sofar[id]; ok {
			dependsOn[id] = v
		}
	}
	var resp struct {
		Items []struct {
			Title any `json:"title"`
			Value any `json:"value"`
		} `json:"items"`
	}
	req := map[string]any{"types": types, "account": account, "field": f.ID, "dependsOn": dependsOn}
	if err := c.callRetry(ctx, http.MethodPost, protocol.PathDatalist, req, &resp); err != nil {
		return nil, fmt.Errorf("datalist of filter %s: %w", f.ID, err)
	}
	out := map[string]string{}
	for _, it := range resp.Items {
		v := fmt.Sprint(it.Value)
		if it.Title != nil {
			out[fmt.Sprint(it.Title)] = v
		}
		out[v] = v
	}
	return out, nil
}

// validateFilter calls filter/validate; an app without it (404) accepts
// every filter.
func validateFilter(ctx context.Context, c *client, types []string, filter map[string]json.RawMessage, account map[string]any) error {
	err := c.callRetry(ctx, http.MethodPost, protocol.PathFilterValidate, map[string]any{"types": types, "filter": filter, "account": account}, nil)
	var ae *AppError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusMethodNotAllowed):
		return nil
	case errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500:
		return fmt.Errorf("%w: %s", ErrFilterRejected, ae.Message)
	}
	return fmt.Errorf("validate the filter: %w", err)
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1", "checked":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	return false, false
}
