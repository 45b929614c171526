package graphql

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/htmlpage"
	"github.com/appkitgo/appkit/internal/netguard"
	"github.com/appkitgo/appkit/internal/store"
)

// Files attached to entities: downloaded by addFileFromUrl or rendered by
// attachPdfUsingTemplate, kept by the store (store.File), listed by an entity's
// files field and served by ServeFile.

// Limits of addFileFromUrl.
const (
	// DefaultMaxFileBytes is the largest file addFileFromUrl keeps.
	DefaultMaxFileBytes = 10 << 20
	// DefaultFetchTimeout bounds one download, redirects included.
	DefaultFetchTimeout = 15 * time.Second
	// maxRedirects bounds the redirects of one download.
	maxRedirects = 5
	// maxFileName bounds a file's name.
	maxFileName = 255
)

// fileInfo describes a stored file.
type fileInfo struct {
	id, name, contentType string
	size, created         int64
}

func (e *executor) fileList(c *cfield, files []fileInfo) []any {
	fields := e.sub(c, tFile)
	out := make([]any, 0, len(files))
	for _, f := range files {
		out = append(out, objectOf(fields, tFile, func(s *cfield) any {
			switch s.name {
			case "id":
				return f.id
			case "name":
				return f.name
			case "contentType":
				return f.contentType
			case "size":
				return f.size
			case "url":
				return e.svc.cfg.FilesPath + f.id
			case "createdAt":
				return store.FormatDateTime(f.created)
			}
			return nil
		}))
	}
	return out
}

// checkName refuses file names with path separators or control characters.
func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > maxFileName || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return "", userErrorf("name must be a file name of 1 to %d bytes without / or \\", maxFileName)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return "", userErrorf("name holds a control character")
		}
	}
	return name, nil
}

// attach stores a file for each entity.
func (g *group) attach(ids []string, name, ctype string, data []byte) error {
	if err := g.e.charge(len(data) * len(ids)); err != nil {
		return err
	}
	for _, id := range ids {
		if err := g.tx.AttachFile(store.File{EntityID: id, Name: name, ContentType: ctype, Data: data, Created: g.e.now()}); err != nil {
			return err
		}
	}
	return nil
}

// errBlocked reports a download to an address the host does not reach.
var errBlocked = fmt.Errorf("the address is private, loopback or otherwise not public (%w)", netguard.ErrNotAllowed)

// blockedAddr reports addresses a download may not reach: all but public
// ones (see internal/netguard).
func blockedAddr(a netip.Addr) bool { return !netguard.PublicOnly.Allows(a) }

// fetcher downloads files for addFileFromUrl.
type fetcher struct {
	client  *http.Client
	maxSize int64
}

func newFetcher(allowPrivate bool, maxSize int64, timeout time.Duration) *fetcher {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		// The check runs on the address actually dialled, after DNS
		// resolution, for the first request and every redirect: a name
		// that resolves to a private address is refused too.
		dialer.Control = func(network, address string, c syscall.RawConn) error {
			if netguard.PublicOnly.Control(network, address, c) != nil {
				return errBlocked
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	return &fetcher{maxSize: maxSize, client: &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("a redirect to a %s address", req.URL.Scheme)
			}
			return nil
		},
	}}
}

// fetch downloads url: its bytes and content type.
func (f *fetcher) fetch(ctx context.Context, raw string) ([]byte, string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, "", userErrorf("url must be an http or https address without credentials")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", userErrorf("url: %v", err)
	}
	req.Header.Set("User-Agent", "appkit-host")
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, errBlocked) {
			return nil, "", userErrorf("cannot download from %s: %v", u.Hostname(), errBlocked)
		}
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "", userErrorf("cannot download from %s: %v", u.Hostname(), shortNetErr(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", userErrorf("downloading from %s answered %d", u.Hostname(), resp.StatusCode)
	}
	if resp.ContentLength > f.maxSize {
		return nil, "", userErrorf("the file is larger than %d bytes", f.maxSize)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, f.maxSize+1))
	if err != nil {
		return nil, "", userErrorf("downloading from %s failed: %v", u.Hostname(), shortNetErr(err))
	}
	if int64(len(data)) > f.maxSize {
		return nil, "", userErrorf("the file is larger than %d bytes", f.maxSize)
	}
	ctype := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ctype); err != nil || mt == "" {
		ctype = http.DetectContentType(data)
	}
	return data, ctype, nil
}

// shortNetErr names a network failure without the whole URL.
func shortNetErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// pdfFile renders text (the filled template: paragraphs separated by blank
// lines) as a PDF document. The built-in Helvetica font covers Latin-1
// (code page 1252); other characters are replaced.
func pdfFile(title, text string) ([]byte, error) {
	doc := fpdf.New("P", "mm", "A4", "")
	doc.SetTitle(title, true)
	doc.SetCreator("appkit host", true)
	doc.SetCreationDate(time.Unix(0, 0).UTC())
	doc.SetCompression(true)
	tr := doc.UnicodeTranslatorFromDescriptor("")
	doc.AddPage()
	doc.SetFont("Helvetica", "", 11)
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		doc.MultiCell(0, 5.5, tr(para), "", "L", false)
		doc.Ln(3)
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		return nil, fmt.Errorf("graphql: render pdf: %w", err)
	}
	return buf.Bytes(), nil
}

// pdfName is the file name of a rendered PDF.
func pdfName(name string) string {
	if name == "" {
		name = "document"
	}
	if !strings.EqualFold(path.Ext(name), ".pdf") {
		name += ".pdf"
	}
	return name
}

// ServeFile answers GET of a stored file by id: its bytes with its type, as
// an attachment; 404 {message} when there is none.
func (s *Service) ServeFile(w http.ResponseWriter, r *http.Request, id string) {
	if _, err := uuid.Parse(id); err != nil {
		writeMessage(w, http.StatusNotFound, "no such file")
		return
	}
	f, found, err := s.cfg.Store.Attached().File(r.Context(), strings.ToLower(id))
	if err != nil {
		s.internal(w, r, err)
		return
	}
	if !found {
		writeMessage(w, http.StatusNotFound, "no such file")
		return
	}
	name, ctype, data := f.Name, f.ContentType, f.Data
	htmlpage.Set(w, ctype, filePolicy)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.Write(data)
}

// filePolicy is an attachment's headers: nothing loads and the document is
// sandboxed, whatever its type.
var filePolicy = htmlpage.Policy{CSP: []string{"default-src 'none'", "sandbox"}}

func writeMessage(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(appendJSON([]byte(`{"message":`), msg), '}'))
}

func (s *Service) internal(w http.ResponseWriter, r *http.Request, err error) {
	if s.cfg.OnError != nil {
		s.cfg.OnError(r.Context(), err)
	}
	writeMessage(w, http.StatusInternalServerError, "internal error")
}
