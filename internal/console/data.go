package console

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/appkitgo/appkit/internal/store"
)

// dataView is the data screen's content: the spaces of the store.
type dataView struct {
	Spaces []*space
}

// space is a space of the store with its databases (domain types).
type space struct {
	Name    string
	Types   []dbType
	GraphQL string
}

type dbType struct {
	Name  string // store name, "tracker/task"
	Label string // "task"
}

// spaceOf splits a store type name "space/type".
func spaceOf(name string) (string, string) {
	i := strings.LastIndex(name, "/")
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

// graphQLLink is the address of the GraphQL IDE of a space ("" when the
// host serves none).
func (c *Console) graphQLLink(space string) string {
	if c.cfg.GraphQLPath == "" {
		return ""
	}
	return c.cfg.GraphQLPath + url.PathEscape(space)
}

func (c *Console) dataPage(w http.ResponseWriter, r *http.Request) error {
	cat, err := c.cfg.Store.Catalog(r.Context())
	if err != nil {
		return fmt.Errorf("console: catalog: %w", err)
	}
	bySpace := map[string]*space{}
	var names []string
	for _, t := range cat.Types {
		if t.Kind != store.KindDomain {
			continue
		}
		sp, label := spaceOf(t.Name)
		s := bySpace[sp]
		if s == nil {
			s = &space{Name: sp, GraphQL: c.graphQLLink(sp)}
			bySpace[sp] = s
			names = append(names, sp)
		}
		s.Types = append(s.Types, dbType{Name: t.Name, Label: label})
	}
	sort.Strings(names)
	list := make([]*space, 0, len(names))
	for _, n := range names {
		sort.Slice(bySpace[n].Types, func(i, j int) bool { return bySpace[n].Types[i].Name < bySpace[n].Types[j].Name })
		list = append(list, bySpace[n])
	}
	return dataScreen.show(c, w, r, http.StatusOK, layout{Title: "Data", Nav: "data"}, &dataView{Spaces: list})
}
