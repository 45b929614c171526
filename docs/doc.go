// Package docs holds the project's manuals, in Markdown beside this file:
// protocol.md (the app protocol), host-api.md (the host's command API,
// apps API and GraphQL), sdk.md, host.md, cli.md, architecture.md,
// development.md and performance.md. It has no code; its test checks that
// every link to a document or a section of one, in the repository's Go
// files and Markdown, resolves.
package docs
