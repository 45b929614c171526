package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// Report is the outcome of a run.
type Report struct {
	// URL is the address that was checked (a loopback address for an app
	// served in process).
	URL string `json:"url"`
	// Results holds one entry per check and subject, in the order they ran.
	Results []Result `json:"results"`
	// Latency holds the answer times of each endpoint, sorted by endpoint.
	Latency []Latency `json:"latency"`
	// Passed counts the Results whose status is Passed.
	Passed int `json:"passed"`
	// Failed counts the Results whose status is Failed; the run is OK only
	// when it is 0.
	Failed int `json:"failed"`
	// Warnings counts the Results whose status is Warned: findings that do
	// not fail the run.
	Warnings int `json:"warnings"`
	// Skipped counts the Results whose status is Skipped: checks that could
	// not run (Result.Why says why).
	Skipped int `json:"skipped"`
	// Duration is the wall time of the run.
	Duration time.Duration `json:"durationNs"`
	// Stopped says why the run stopped before its end (an interrupt,
	// Config.TotalTimeout); empty for a complete run. A stopped run's
	// report is partial: the checks it did not reach have no result.
	Stopped string `json:"stopped,omitempty"`
}

// Latency sums up the answers of one endpoint.
type Latency struct {
	// Endpoint is the method and path: "POST /api/v1/synchronizer/data".
	Endpoint string `json:"endpoint"`
	// Calls counts the answered requests.
	Calls int `json:"calls"`
	// Mean is the mean answer time of the answered requests.
	Mean time.Duration `json:"meanNs"`
	// Max is the longest answer time.
	Max time.Duration `json:"maxNs"`
	// Slow counts the answers slower than Config.SlowAfter.
	Slow int `json:"slow"`
	// Unanswered counts requests without an answer (timeouts, refused
	// connections).
	Unanswered int `json:"unanswered"`
}

// OK reports whether no check failed (warnings do not count).
func (rep Report) OK() bool { return rep.Failed == 0 }

// Summary is the one-line outcome: "N passed, N failed, N skipped", with
// the warnings after it when there are any.
func (rep Report) Summary() string {
	s := fmt.Sprintf("%d passed, %d failed, %d skipped", rep.Passed, rep.Failed, rep.Skipped)
	if rep.Warnings > 0 {
		s += fmt.Sprintf(" (%d warning", rep.Warnings)
		if rep.Warnings > 1 {
			s += "s"
		}
		s += ")"
	}
	return s
}

// FailedIDs returns the ids of the checks that failed or warned, sorted and
// without repeats.
func (rep Report) FailedIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rep.Results {
		if (r.Status == Failed || r.Status == Warned) && !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, r.ID)
		}
	}
	sort.Strings(out)
	return out
}

func (r *runner) report(d time.Duration) Report {
	rep := Report{URL: r.base, Results: r.results, Duration: d}
	for _, res := range r.results {
		switch res.Status {
		case Passed:
			rep.Passed++
		case Failed:
			rep.Failed++
		case Warned:
			rep.Warnings++
		case Skipped:
			rep.Skipped++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.endpoints)) {
		s := r.endpoints[k]
		l := Latency{Endpoint: k, Calls: s.calls, Max: s.max, Slow: s.slow, Unanswered: s.unanswered}
		if s.calls > 0 {
			l.Mean = s.total / time.Duration(s.calls)
		}
		rep.Latency = append(rep.Latency, l)
	}
	return rep
}

// WriteText writes the report for a terminal: one line per result (with
// expected, got and rule under a failure or warning, why under a skip), the
// latency of each endpoint, why the run stopped when it stopped before its
// end, then the summary line.
func (rep Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "appkit conform %s\n\n", rep.URL)
	for _, r := range rep.Results {
		label := map[Status]string{Passed: "PASS", Failed: "FAIL", Warned: "WARN", Skipped: "SKIP"}[r.Status]
		fmt.Fprintf(&b, "%s  %s  %s\n", label, r.Name(), r.Title)
		switch r.Status {
		case Failed, Warned:
			fmt.Fprintf(&b, "      expected: %s\n      got:      %s\n      rule:     %s\n", r.Expected, r.Got, r.Rule)
		case Skipped:
			fmt.Fprintf(&b, "      why: %s\n", r.Why)
		}
	}
	if len(rep.Latency) > 0 {
		fmt.Fprintf(&b, "\nLatency:\n")
		for _, l := range rep.Latency {
			calls := "calls"
			if l.Calls == 1 {
				calls = "call "
			}
			fmt.Fprintf(&b, "  %-48s %4d %s  mean %-8s max %-8s", l.Endpoint, l.Calls, calls, round(l.Mean), round(l.Max))
			if l.Slow > 0 {
				fmt.Fprintf(&b, "  SLOW: %d", l.Slow)
			}
			if l.Unanswered > 0 {
				fmt.Fprintf(&b, "  UNANSWERED: %d", l.Unanswered)
			}
			trimmed := strings.TrimRight(b.String(), " ")
			b.Reset()
			b.WriteString(trimmed)
			b.WriteByte('\n')
		}
	}
	if rep.Stopped != "" {
		fmt.Fprintf(&b, "\nSTOPPED before the end, the report is partial: %s\n", rep.Stopped)
	}
	fmt.Fprintf(&b, "\n%s\n", rep.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// WriteJSON writes the report as one indented JSON document.
func (rep Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// JUnit XML, as CI servers read it.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one test case per result, a
// failure element for failed checks, skipped for skipped ones; warnings
// pass with their finding in system-out. A run stopped before its end adds
// a failed test case "run [stopped]" that says why.
func (rep Report) WriteJUnit(w io.Writer) error {
	s := junitSuite{Name: "appkit conform " + rep.URL, Tests: len(rep.Results), Failures: rep.Failed, Skipped: rep.Skipped,
		Time: fmt.Sprintf("%.3f", rep.Duration.Seconds())}
	for _, r := range rep.Results {
		c := junitCase{Name: r.Name(), Classname: "conformance." + strings.SplitN(r.ID, ".", 2)[0]}
		detail := fmt.Sprintf("expected: %s\ngot: %s\nrule: %s", r.Expected, r.Got, r.Rule)
		switch r.Status {
		case Failed:
			c.Failure = &junitMessage{Message: r.Title, Text: detail}
		case Warned:
			c.SystemOut = "warning: " + r.Title + "\n" + detail
		case Skipped:
			c.Skipped = &junitMessage{Message: r.Why}
		}
		s.Cases = append(s.Cases, c)
	}
	if rep.Stopped != "" {
		s.Tests++
		s.Failures++
		s.Cases = append(s.Cases, junitCase{Name: "run [stopped]", Classname: "conformance.run",
			Failure: &junitMessage{Message: "the run stopped before its end: the report is partial", Text: rep.Stopped}})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
