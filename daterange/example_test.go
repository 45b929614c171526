package daterange_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/daterange"
)

func ExampleParse() {
	now := time.Date(2017, 6, 13, 10, 0, 0, 0, time.UTC) // a Tuesday
	for _, stmt := range []string{
		"last 2 weeks",
		"between 6 quarters ago and 2 months ago",
		"from 1 January 2017",
	} {
		r, err := daterange.Parse(stmt, now)
		if err != nil {
			fmt.Println(err)
			continue
		}
		b, _ := json.Marshal(r)
		fmt.Printf("%-40s %s\n", stmt, b)
	}
	_, err := daterange.Parse("last 1 day", now)
	fmt.Println(err, errors.Is(err, daterange.ErrSyntax))
	// Output:
	// last 2 weeks                             {"_min":"2017-06-05T00:00:00.000","_max":"2017-06-18T23:59:59.999"}
	// between 6 quarters ago and 2 months ago  {"_min":"2015-10-01T00:00:00.000","_max":"2017-03-31T23:59:59.999"}
	// from 1 January 2017                      {"_min":"2017-01-01T00:00:00.000","_max":null}
	// daterange: syntax error at position 7 ("day"): after a number the unit is plural true
}

func ExampleWithLocation() {
	now := time.Date(2017, 6, 13, 23, 30, 0, 0, time.UTC)
	r, _ := daterange.Parse("today", now, daterange.WithLocation(time.FixedZone("+05:30", 5*3600+1800)))
	fmt.Println(r)
	// Output: {"_min":"2017-06-14T00:00:00.000","_max":"2017-06-14T23:59:59.999"}
}

func ExampleRange_UnmarshalJSON() {
	var filter struct {
		Due daterange.Range `json:"due"`
	}
	_ = json.Unmarshal([]byte(`{"due": {"_min": "2017-06-13T00:00:00.000"}}`), &filter)
	fmt.Println(filter.Due.Min, filter.Due.Max == nil)
	// Output: 2017-06-13 00:00:00 +0000 UTC true
}

func ExampleParseDay() {
	now := time.Date(2017, 6, 13, 10, 0, 0, 0, time.UTC)
	for _, v := range []string{"2017-06-01", "13 June 2017", "3 days ago", "next friday", "sometime soon"} {
		d, err := daterange.ParseDay(v, now)
		if err != nil {
			fmt.Println(v, "->", errors.Is(err, daterange.ErrSyntax))
			continue
		}
		fmt.Println(v, "->", d.Format("2006-01-02"))
	}
	// Output:
	// 2017-06-01 -> 2017-06-01
	// 13 June 2017 -> 2017-06-13
	// 3 days ago -> 2017-06-10
	// next friday -> 2017-06-16
	// sometime soon -> true
}
