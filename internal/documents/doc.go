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
// The spec leaves the PUT body and the json structure "not shown": PUT takes
// {"content": "..."}, and the json content is the tree serialized as a JSON
// string, as the spec says content is a string; PUT also accepts the tree
// object itself.
package documents
