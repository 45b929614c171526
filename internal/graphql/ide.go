package graphql

import (
	"bytes"
	"compress/gzip"
	"embed"
	"html/template"
	"io"
	"net/http"
	"strings"

	"github.com/appkitgo/appkit/internal/htmlpage"
)

// The in-browser IDE: GraphiQL 3.9.0 with React 18.3.1, their built files
// embedded gzip-compressed (graphiql/LICENSES.txt holds their MIT licenses),
// so the page works with no internet access.

//go:embed graphiql/*.gz graphiql/LICENSES.txt
var ideFiles embed.FS

// assetTypes are the content types of the embedded files.
var assetTypes = map[string]string{
	"graphiql.min.js":             "text/javascript; charset=utf-8",
	"graphiql.min.css":            "text/css; charset=utf-8",
	"react.production.min.js":     "text/javascript; charset=utf-8",
	"react-dom.production.min.js": "text/javascript; charset=utf-8",
}

// ServeAsset serves one embedded IDE file by name (the last part of the
// path): gzip-compressed to clients that accept it, else decompressed. It
// answers 404 for any other name.
func ServeAsset(w http.ResponseWriter, r *http.Request, name string) {
	ctype, ok := assetTypes[name]
	if !ok {
		if name == "LICENSES.txt" {
			b, _ := ideFiles.ReadFile("graphiql/LICENSES.txt")
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write(b)
			return
		}
		http.NotFound(w, r)
		return
	}
	gz, err := ideFiles.ReadFile("graphiql/" + name + ".gz")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		w.Write(gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	io.Copy(w, zr)
}

var idePage = template.Must(template.New("ide").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphQL · {{.Space}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="{{.Assets}}/graphiql.min.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading the GraphQL IDE…</div>
<script src="{{.Assets}}/react.production.min.js"></script>
<script src="{{.Assets}}/react-dom.production.min.js"></script>
<script src="{{.Assets}}/graphiql.min.js"></script>
<script>
(function () {
  // The API token: from the page's fragment (#token=...), which never
  // reaches the server or its logs, else from what the user typed before.
  var params = new URLSearchParams(location.hash.slice(1));
  var token = params.get("token") || sessionStorage.getItem("appkit-graphql-token") || "";
  if (params.get("token")) {
    sessionStorage.setItem("appkit-graphql-token", token);
  }
  var endpoint = {{.Endpoint}};
  function fetcher(body, opts) {
    var headers = { "Content-Type": "application/json", "Accept": "application/json" };
    var extra = (opts && opts.headers) || {};
    for (var k in extra) { headers[k] = extra[k]; }
    if (token && !headers.Authorization) { headers.Authorization = "Token " + token; }
    // Without a token, the console's session cookie: the host accepts it
    // only with this header (which a cross-site form or simple request
    // cannot send) from the host's own origin.
    if (!headers.Authorization) { headers["X-Appkit-IDE"] = "1"; }
    return fetch(endpoint, { method: "POST", headers: headers, body: JSON.stringify(body), credentials: "same-origin" })
      .then(function (r) { return r.json(); });
  }
  var query = params.get("query") || {{.Query}};
  // #run=1 runs the query once the IDE is ready (links that show a result).
  if (params.get("run") === "1") {
    var tries = 0;
    var timer = setInterval(function () {
      var button = document.querySelector(".graphiql-execute-button");
      if (button || ++tries > 100) {
        clearInterval(timer);
        if (button) { button.click(); }
      }
    }, 100);
  }
  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultQuery: query,
    defaultEditorToolsVisibility: true,
    shouldPersistHeaders: false
  }));
})();
</script>
</body>
</html>
`))

// idePolicy is GraphiQL's headers: its bundled scripts and styles with the
// inline ones it needs, its data: images and fonts, and no framing.
var idePolicy = htmlpage.Policy{
	CSP: []string{
		"default-src 'self'",
		"script-src 'self' 'unsafe-inline'",
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data:",
		"font-src 'self' data:",
		"connect-src 'self'",
		"frame-ancestors 'none'",
	},
	Cache:    "no-store",
	Referrer: "no-referrer",
}

// IDEHeader is the request header the IDE page sends when it has no API
// token (its value is "1"): the host then accepts the console's session
// cookie from its own origin.
const IDEHeader = "X-Appkit-IDE"

// ServeIDE serves the GraphiQL page of a space; endpoint is the path of the
// space's API, assets the path under which ServeAsset serves the files and
// query the query the editor opens on (OpeningQuery; empty: FallbackQuery),
// after a comment line on how the page authenticates.
func ServeIDE(w http.ResponseWriter, r *http.Request, space, endpoint, assets, query string) {
	if query == "" {
		query = FallbackQuery
	}
	query = "# Space " + strings.ReplaceAll(space, "\n", " ") + ": press the play button to run the query.\n" +
		"# Signed in to the console, the page runs as you; otherwise put an API token in the Headers tab\n" +
		"# as {\"Authorization\": \"Token <token>\"}, or in this page's address as #token=<token>.\n" + query
	htmlpage.Set(w, htmlpage.HTML, idePolicy)
	idePage.Execute(w, struct{ Space, Endpoint, Assets, Query string }{space, endpoint, assets, query})
}
