// Package documents holds the rich-text documents of the workspace host and
// serves them at GET and PUT /api/documents/<secret>.
//
// A rich-text field of an entity points at a Collaboration~Documents/Document
// entity whose Collaboration~Documents/secret names the document here; the
// entity store decides whether a secret exists, this package stores what was
// written under it. Content is stored canonically as markdown (CommonMark with
// the GitHub tables, strikethrough, autolinks and task lists) and converted
// on the way in and out:
//
//   - md: stored as is (line ends normalized, one trailing newline);
//   - html: read through goldmark (raw HTML omitted, dangerous links dropped),
//     written through html-to-markdown with its table and strikethrough
//     plugins;
//   - json: the document tree of [Node], read from goldmark's syntax tree and
//     written back by rendering it as escaped HTML and converting that.
//
// # Secrets
//
// A secret is a UUID. It is matched in any case and stored, looked up and
// answered in lower case, so an upper-case PUT writes the document a
// lower-case GET reads (rows stored in another case by older versions are
// renamed when the store opens; of two spellings the newer content is kept).
//
// # Limits
//
// Content holding a NUL character (U+0000) is refused (400) in every format.
// The markdown parser is quadratic in two shapes of input, so markdown,
// written or read, is refused as too complex (422) when
//
//   - one line opens more than [MaxContainersPerLine] (32) nested block
//     quotes and list items ("- - - … x"; nesting spread over lines by
//     indentation is not limited), or
//   - in a run of non-blank lines, the unescaped '[' times the run's length
//     in bytes exceeds [MaxBracketWork] (2^26: 1,000 links in 64 KB pass, as
//     do 16 in 4 MB).
//
// The HTML converter escapes every literal '[' in text ("\[") rather than
// searching for its partner. A json tree is at most [MaxTreeDepth] (64)
// levels and [MaxTreeNodes] (200,000) nodes. A PUT body is at most
// [DefaultMaxBody] (4 MB) unless the handler sets less.
//
// Conversions run at most [DefaultMaxConversions] (2) at once and, for one
// client (its API token, else its session cookie, else its address), at
// most one less than that (at least 1), so one client never holds every
// slot. A conversion that has not finished [DefaultConvertTimeout] (5 s)
// after the request asked for it, waiting for a slot included, answers 422
// and is stopped: the parsers check for cancellation at every line, every
// container opened on a line, every inline delimiter and every 4 KB of HTML
// read (rendering parsed HTML is linear and not interrupted),
// and the slots are given back when the work has stopped.
//
// The spec leaves the PUT body and the json structure "not shown": PUT takes
// {"content": "..."}, and the json content is the tree serialized as a JSON
// string, as the spec says content is a string; PUT also accepts the tree
// object itself.
package documents
