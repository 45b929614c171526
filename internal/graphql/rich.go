package graphql

import (
	"context"
	"strings"

	"github.com/appkitgo/appkit/internal/documents"
	"github.com/appkitgo/appkit/internal/store"
)

// comment is one stored comment.
type comment struct {
	author  string
	content string
	created int64
}

// loader batches the reads the rows of an answer point at.
type loader struct {
	secrets   []string
	ids       []string
	docs      map[string]string // secret (lower case) → markdown
	comments  map[string][]comment
	files     map[string][]fileInfo
	assignees map[string][]string
	seenDoc   map[string]bool
	seenID    map[string]bool
	// max bounds the bytes of documents and comments read (0: no bound);
	// past it the load fails with tooLarge.
	max      int
	read     int
	tooLarge error
}

// spend counts n bytes read against the loader's bound.
func (l *loader) spend(n int) error {
	if l.read += n; l.max > 0 && l.read > l.max {
		return l.tooLarge
	}
	return nil
}

func (l *loader) wantDoc(secret string) {
	secret = strings.ToLower(secret)
	if l.seenDoc == nil {
		l.seenDoc = map[string]bool{}
	}
	if !l.seenDoc[secret] {
		l.seenDoc[secret] = true
		l.secrets = append(l.secrets, secret)
	}
}

// wantEntity asks for the comments, files and assignees of an entity.
func (l *loader) wantEntity(id string) {
	if l.seenID == nil {
		l.seenID = map[string]bool{}
	}
	if !l.seenID[id] {
		l.seenID[id] = true
		l.ids = append(l.ids, id)
	}
}

func (l *loader) load(ctx context.Context, svc *Service) error {
	return l.loadFrom(ctx, svc, svc.cfg.Store.DB(), svc.cfg.Store.Attached())
}

// loadFrom reads the documents through db and the comments, files and
// assignees through att (the store's, or the transaction's of a
// mutation).
func (l *loader) loadFrom(ctx context.Context, svc *Service, db store.Querier, att store.Attached) error {
	l.docs = map[string]string{}
	l.comments = map[string][]comment{}
	l.files = map[string][]fileInfo{}
	l.assignees = map[string][]string{}
	err := documents.Contents(ctx, db, svc.cfg.Store.Dialect(), l.secrets, func(secret, content string) error {
		if err := l.spend(len(content)); err != nil {
			return err
		}
		l.docs[secret] = content
		return nil
	})
	if err != nil {
		return err
	}
	if len(l.ids) == 0 {
		return nil
	}
	err = att.Comments(ctx, l.ids, func(c store.Comment) error {
		if err := l.spend(len(c.Content)); err != nil {
			return err
		}
		l.comments[c.EntityID] = append(l.comments[c.EntityID], comment{author: c.Author, content: c.Content, created: c.Created})
		return nil
	})
	if err != nil {
		return err
	}
	err = att.Files(ctx, l.ids, func(f store.File) error {
		l.files[f.EntityID] = append(l.files[f.EntityID], fileInfo{id: f.ID, name: f.Name, contentType: f.ContentType, size: f.Size, created: f.Created})
		return nil
	})
	if err != nil {
		return err
	}
	return att.Assignees(ctx, l.ids, func(id, email string) error {
		l.assignees[id] = append(l.assignees[id], email)
		return nil
	})
}

// rich writes a RichText (or Comment) object of markdown md.
func (e *executor) rich(c *cfield, typeName, md string, cm *comment, path []any) *omap {
	return objectOf(e.sub(c, typeName), typeName, func(f *cfield) any {
		switch f.name {
		case "md":
			return md
		case "html":
			h, err := documents.MarkdownToHTML(md)
			if err != nil {
				e.failErr(f.first(), extend2(path, f.key), err)
				return nil
			}
			return h
		case "jsonString":
			j, err := documents.Encode(md, documents.FormatJSON)
			if err != nil {
				e.failErr(f.first(), extend2(path, f.key), err)
				return nil
			}
			return j
		case "text":
			return plainText(documents.MarkdownToTree(md))
		case "author":
			if cm != nil {
				return cm.author
			}
		case "createdAt":
			if cm != nil {
				return store.FormatDateTime(cm.created)
			}
		}
		return nil
	})
}

func (e *executor) comments(c *cfield, list []comment, path []any) []any {
	out := make([]any, 0, len(list))
	for i := range list {
		out = append(out, e.rich(c, tComment, list[i].content, &list[i], append(path, i)))
	}
	return out
}

// plainText is the text of a document tree: blocks on their own lines,
// breaks as spaces.
func plainText(n *documents.Node) string {
	var sb strings.Builder
	var walk func(n *documents.Node)
	walk = func(n *documents.Node) {
		switch n.Type {
		case "text", "code", "code_block":
			sb.WriteString(n.Text)
		case "soft_break", "hard_break":
			sb.WriteByte(' ')
		case "image":
			sb.WriteString(n.Alt)
		case "html_block", "html_inline":
		default:
			for _, ch := range n.Children {
				walk(ch)
			}
		}
		switch n.Type {
		case "paragraph", "heading", "code_block", "list_item", "table_row", "blockquote":
			if sb.Len() > 0 && !strings.HasSuffix(sb.String(), "\n") {
				sb.WriteByte('\n')
			}
		}
	}
	if n != nil {
		walk(n)
	}
	return strings.TrimRight(sb.String(), "\n")
}
