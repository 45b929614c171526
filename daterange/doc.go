// Package daterange parses the date-range language that users type into
// "date" filters, and reads and writes the {_min, _max} wire form of the
// result.
//
// # The language
//
// Words are separated by whitespace: ASCII whitespace and the Unicode spaces
// that pasted text carries (U+00A0 no-break space, U+2000-U+200A, U+202F,
// U+3000); keywords, units and month names are case-insensitive, and extra
// whitespace does not matter. Positions in errors are byte offsets.
//
//	statement = term | "between" side "and" side | "from" day ["to" day] | "to" day
//	term      = day | period
//	day       = date | "today" | "yesterday"
//	side      = term | unit "ago" | N units "ago"
//	period    = "this" unit | "last" unit | "last" N units
//	          | "previous" unit | "previous" N units
//	date      = DD MMMM YYYY | DD-MMMM-YYYY | DD MM YYYY | DD-MM-YYYY
//	unit      = day | week | month | quarter | year      (singular without N)
//	units     = days | weeks | months | quarters | years (plural with N)
//	N         = 1, 2, ... (no leading zero, at most six digits)
//
// MMMM is a month name, full or its first three letters ("June", "jun");
// DD is one or two digits, MM one or two digits, YYYY four; the day comes
// first ("10-12-2017" is 10 December). Weeks are ISO weeks, Monday to
// Sunday; months, quarters and years are calendar ones. Every range is
// inclusive: Min is 00:00:00.000 of its first day and Max 23:59:59.999 of
// its last day. Where a daylight-saving change skips midnight
// (America/Sao_Paulo on 2017-10-15), Min is the first instant of the day
// instead, 01:00; where it repeats the last hour of the day, Max is the
// later 23:59:59.999. So a range holds every instant of its days.
//
//	statement            Min                                 Max
//	a date, today,       start of that day                   end of that day
//	  yesterday
//	this/last unit       start of the current unit           end of the current unit
//	last N units         start of the unit N-1 before        end of the current unit
//	previous unit        start of the unit before            end of the unit before
//	previous N units     start of the unit N before          end of the unit before
//	between A and B      Min of A                            Max of B
//	from A               Min of A                            open (nil)
//	to B                 open (nil)                          Max of B
//	from A to B          Min of A                            Max of B
//
// "unit ago" (N = 1) and "N units ago" appear only as a side of between: as
// the lower side they give the start of the unit N before the current one
// (N whole units back, where "last N units" counts N-1), as the upper side
// the last millisecond before that start. So on Tuesday 2017-06-13
// "between 6 quarters ago and 2 months ago" is 2015-10-01T00:00:00.000 to
// 2017-03-31T23:59:59.999, "last 2 weeks" is 2017-06-05 to 2017-06-18, and
// "previous 2 weeks" 2017-05-29 to 2017-06-11.
//
// "from" and "to" take a day only: a date, today or yesterday. A period
// there ("from this week", "to last month") is an error; write "between
// this week and today" instead. "from A" leaves Max open (nil, _max null)
// rather than ending it now; "to B" leaves Min open. "this" takes one unit
// and no number: "this week", never "this 2 weeks" (that is "last 2
// weeks").
//
// Everything else is an error, never a guess: there is no "next", "last 1
// day" and "last 2 week" mix singular and plural, "last 0 days" and "last 01
// days" are not numbers of units, "3 months ago" alone is not a range,
// "30 Feb 2017" is not a date, and "between today and yesterday" starts
// after it ends. A bound the statement uses must lie in the years
// 0001-9999 (ErrOutOfRange); "N units ago" as a lower side is checked only
// as a lower bound, as an upper side only as an upper bound. Errors are
// *Error values carrying the offending word and its byte position; their
// Kind (ErrSyntax, ErrInvalidDate, ErrStartAfterEnd, ErrOutOfRange) matches
// with errors.Is. Parse never panics.
//
// "today" is now's calendar day in now's location, or in the location given
// with WithLocation; the bounds are wall-clock times in that location.
//
// # Wire form
//
// Range marshals to {"_min": "2017-06-13T00:00:00.000", "_max": null}
// (WireLayout: ISO 8601, milliseconds, no zone); WireJSON leaves an open
// side out, as the service sends it. UnmarshalJSON also reads a missing key
// or null as an open side, naive times with or without a fraction, and
// RFC 3339 times with a zone. Naive times decode as wall clock in UTC. The
// keys are exactly "_min" and "_max", each at most once.
//
// ParseDay reads a "datebox" value: an ISO day, a date of the grammar, or a
// natural phrase such as "3 days ago" checked word by word before
// github.com/tj/go-naturaldate evaluates it. A phrase means the same there
// as in the grammar or is refused: "last week" is a period of the grammar,
// not a day, so ParseDay refuses it.
//
// # Speed
//
// Parse takes a few hundred nanoseconds and one allocation per statement;
// measure with go test -run '^$' -bench Parse ./daterange.
package daterange
