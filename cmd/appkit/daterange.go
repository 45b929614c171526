package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // --tz takes IANA names even where the system has no zoneinfo

	"github.com/appkitgo/appkit/daterange"
)

func init() {
	register(command{
		name:    "daterange",
		summary: "evaluate a date-range statement and print its {_min, _max}",
		run:     runDaterange,
	})
}

const daterangeUsage = `Usage: appkit daterange [--now RFC3339] [--tz ZONE] STATEMENT...

Evaluates a statement of the date-range language of "date" filters and prints
the range as one JSON object {"_min": ..., "_max": ...}: timezone-naive
wall-clock times in ZONE with milliseconds, null for an open side. The words
of STATEMENT may be given as one argument or several.

Exit status: 0 with the range on stdout; 1 when the statement is wrong (the
message, with the offending word and its position, on stderr); 2 for a usage
error.

Examples:
  appkit daterange last 2 weeks
  appkit daterange --now 2017-06-13T10:00:00Z "between 6 quarters ago and 2 months ago"
  appkit daterange --tz Europe/Berlin from 1 jan 2017

Flags:
`

// runDaterange implements "appkit daterange".
func runDaterange(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("daterange", daterangeUsage, nil, stderr)
	nowFlag := fs.String("now", "", "the current time, RFC 3339 (default: the system clock)")
	tzFlag := fs.String("tz", "UTC", "the time zone: an offset such as +05:30, or an IANA name such as Europe/Berlin (not Local: the output must not depend on the machine)")
	if err := fs.parse(args); err != nil {
		return err
	}
	stmt := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(stmt) == "" {
		return usageErrorf("no statement")
	}
	loc, err := parseZone(*tzFlag)
	if err != nil {
		return usageErrorf("--tz: %v", err)
	}
	now := time.Now()
	if *nowFlag != "" {
		if now, err = time.Parse(time.RFC3339Nano, *nowFlag); err != nil {
			return usageErrorf("--now %q is not an RFC 3339 time such as 2017-06-13T10:00:00Z", *nowFlag)
		}
	}
	r, err := daterange.Parse(stmt, now, daterange.WithLocation(loc))
	if err != nil {
		return err
	}
	out, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// parseZone reads --tz: "UTC" or "Z", an offset ±HH:MM, ±HHMM or ±HH (at
// most 14 hours), or an IANA zone name. "Local" (the machine's zone, which
// time.LoadLocation would take) and "" are refused: the output must not
// depend on the machine it runs on.
func parseZone(s string) (*time.Location, error) {
	switch s {
	case "UTC", "utc", "Z", "z":
		return time.UTC, nil
	case "":
		return nil, errors.New("empty zone: want an offset such as +05:30 or an IANA name such as Europe/Berlin")
	}
	if strings.EqualFold(s, "Local") {
		return nil, fmt.Errorf("%q would depend on the machine: name the zone (an offset such as +05:30 or an IANA name such as Europe/Berlin)", s)
	}
	if s[0] == '+' || s[0] == '-' {
		digits := strings.Replace(s[1:], ":", "", 1)
		if (len(digits) != 2 && len(digits) != 4) || (strings.Contains(s[1:], ":") && len(s) != 6) ||
			strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return nil, fmt.Errorf("offset %q: want ±HH:MM", s)
		}
		h, _ := strconv.Atoi(digits[:2])
		m := 0
		if len(digits) == 4 {
			m, _ = strconv.Atoi(digits[2:])
		}
		if h > 14 || m > 59 || (h == 14 && m > 0) {
			return nil, fmt.Errorf("offset %q: want ±HH:MM between -14:00 and +14:00", s)
		}
		off := h*3600 + m*60
		if s[0] == '-' {
			off = -off
		}
		return time.FixedZone(s, off), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("unknown zone %q: want an offset such as +05:30 or an IANA name such as Europe/Berlin", s)
	}
	return loc, nil
}
