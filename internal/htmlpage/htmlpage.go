// Package htmlpage sets the response headers of the pages the host serves
// itself (the console, GraphiQL, the OAuth callback, a file download): one
// place for the content type, nosniff, the cache and referrer policies and
// the page's Content-Security-Policy.
package htmlpage

import (
	"net/http"
	"strings"
)

// HTML is the content type of an HTML page.
const HTML = "text/html; charset=utf-8"

// Policy is what a page needs from its headers.
type Policy struct {
	// CSP lists the page's Content-Security-Policy directives, in order
	// (for example "default-src 'none'", "script-src 'self'"); they are
	// joined with "; ".
	CSP []string
	// Cache is the Cache-Control value; empty leaves the header unset.
	Cache string
	// Referrer is the Referrer-Policy; empty leaves the header unset.
	Referrer string
}

// String is the Content-Security-Policy value of p.
func (p Policy) String() string { return strings.Join(p.CSP, "; ") }

// Set sets the page's headers on w: Content-Type (when contentType is not
// empty), X-Content-Type-Options: nosniff, Content-Security-Policy, and
// Cache-Control and Referrer-Policy when p sets them. Call it before
// WriteHeader.
func Set(w http.ResponseWriter, contentType string, p Policy) {
	h := w.Header()
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	h.Set("X-Content-Type-Options", "nosniff")
	if p.Cache != "" {
		h.Set("Cache-Control", p.Cache)
	}
	if p.Referrer != "" {
		h.Set("Referrer-Policy", p.Referrer)
	}
	if len(p.CSP) > 0 {
		h.Set("Content-Security-Policy", p.String())
	}
}
