package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

func init() {
	register(command{
		name:    "version",
		summary: "print appkit's module version, commit and Go version",
		run:     runVersion,
	})
}

// runVersion implements "appkit version": what the Go toolchain recorded in
// the binary when it was built (go install ...@v1.2.3, go build in a clone).
const versionUsage = `Usage: appkit version

Prints appkit's module version, the commit it was built from and the Go
version and platform.

Flags:
`

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", versionUsage, nil, stderr)
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("this binary carries no build information")
	}
	_, err := fmt.Fprint(stdout, formatVersion(info))
	return err
}

// formatVersion renders the build information of an appkit binary: the
// module version ("v1.2.3" for go install ...@v1.2.3, a pseudo-version or
// "(devel)" for a local build), then the VCS commit, its time and whether the
// tree had uncommitted changes, when the build recorded them (go build in a
// git checkout does; go install from the module proxy does not: the version
// names the commit there), and the Go version.
func formatVersion(info *debug.BuildInfo) string {
	var b strings.Builder
	version := info.Main.Version
	if version == "" {
		version = "(unknown)"
	}
	fmt.Fprintf(&b, "appkit %s\n", version)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		line := "commit " + rev
		if t := settings["vcs.time"]; t != "" {
			line += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			line += " with uncommitted changes"
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "%s", info.GoVersion)
	if goos, goarch := settings["GOOS"], settings["GOARCH"]; goos != "" && goarch != "" {
		fmt.Fprintf(&b, " %s/%s", goos, goarch)
	}
	b.WriteString("\n")
	return b.String()
}
