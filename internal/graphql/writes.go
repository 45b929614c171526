package graphql

import (
	"fmt"
	"strings"
)

// Bounds of what one request's mutations write: a template is short, but it
// is filled once per selected entity and may repeat references to long
// values, so the filled texts and every per-entity copy are bounded too.
const (
	// MaxTemplateBytes is the longest text template (addComment, the
	// rich-text actions, notification subjects and messages,
	// attachPdfUsingTemplate).
	MaxTemplateBytes = 64 << 10
	// MaxTemplateRefs is the most {{references}} one template holds.
	MaxTemplateRefs = 100
	// MaxTextBytes is the longest text one action writes for one entity: a
	// filled template, a comment, a notification's subject and message, a
	// rich-text document after an append or prepend.
	MaxTextBytes = 1 << 20
	// MaxPdfTextBytes is the longest filled text attachPdfUsingTemplate
	// renders (a page holds about 3 KB).
	MaxPdfTextBytes = 64 << 10
	// MaxWriteBytes is the most one request's mutations write in texts and
	// files, every per-entity copy counted (a comment on 1,000 entities
	// counts 1,000 times): the command API's body bound
	// (commands.MaxBodyBytes), what one command request can carry.
	MaxWriteBytes = 32 << 20
)

// writeTooLarge reports a write over one of the bounds above.
type writeTooLarge struct{ msg string }

func (w *writeTooLarge) Error() string { return w.msg }

func tooLargef(format string, args ...any) error {
	return &writeTooLarge{msg: fmt.Sprintf(format, args...)}
}

// charge counts n bytes written by the request against MaxWriteBytes.
func (e *executor) charge(n int) error {
	e.written += int64(n)
	if e.written > int64(e.svc.cfg.MaxWriteBytes) {
		return tooLargef("the request would write more than %d bytes of texts and files (copies per entity counted); act on fewer entities per request", e.svc.cfg.MaxWriteBytes)
	}
	return nil
}

// checkTemplate bounds a template before it is filled.
func checkTemplate(tpl string) error {
	if len(tpl) > MaxTemplateBytes {
		return tooLargef("the template is longer than %d bytes", MaxTemplateBytes)
	}
	if n := strings.Count(tpl, "{{"); n > MaxTemplateRefs {
		if refs := refPattern.FindAllStringIndex(tpl, MaxTemplateRefs+1); len(refs) > MaxTemplateRefs {
			return tooLargef("the template holds more than %d {{references}}", MaxTemplateRefs)
		}
	}
	return nil
}

// checkText bounds one text written for one entity.
func checkText(what string, n, max int) error {
	if n > max {
		return tooLargef("%s would be longer than %d bytes", what, max)
	}
	return nil
}
