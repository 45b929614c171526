// Package daterange parses the date-range language that users type into
// "date" filters, and reads and writes the {_min, _max} wire form.
package daterange
