package daterange

import (
	"testing"
	"time"
)

// benchStatements is a mix of typical statements.
var benchStatements = []string{
	"today",
	"last 2 weeks",
	"previous month",
	"this quarter",
	"13 June 2017",
	"between 6 quarters ago and 2 months ago",
	"from 01-01-2017 to yesterday",
	"to 31 dec 2017",
}

// BenchmarkParse parses the mix and reports, as x-time.Parse, its time per
// statement relative to the standard library's time.Parse of one date
// ("13 June 2017"), measured in the same process over the same number of
// iterations.
func BenchmarkParse(b *testing.B) { benchParse(b, time.UTC) }

// BenchmarkParseZone is BenchmarkParse in a named zone with daylight saving.
func BenchmarkParseZone(b *testing.B) {
	loc, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		b.Skip(err)
	}
	benchParse(b, loc)
}

// benchParse parses the mix in loc, reporting x-time.Parse against
// time.ParseInLocation of one date in loc.
func benchParse(b *testing.B, loc *time.Location) {
	now := time.Date(2017, 6, 13, 10, 0, 0, 0, loc)
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := time.ParseInLocation("2 January 2006", "13 June 2017", loc); err != nil {
			b.Fatal(err)
		}
	}
	baseline := time.Since(start)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(benchStatements[i%len(benchStatements)], now); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if baseline > 0 {
		b.ReportMetric(float64(b.Elapsed())/float64(baseline), "x-time.Parse")
	}
}
