package appkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// fuzzItem has a field of every Go type the struct encoder knows, plain,
// behind a pointer and with omitempty.
type fuzzItem struct {
	ID     int64      `appkit:"id"`
	Name   string     `appkit:"name"`
	Done   bool       `appkit:"done"`
	I      int        `appkit:"i"`
	I8     int8       `appkit:"i8"`
	I16    int16      `appkit:"i16"`
	I32    int32      `appkit:"i32"`
	I64    int64      `appkit:"i64"`
	U      uint       `appkit:"u"`
	U8     uint8      `appkit:"u8"`
	U16    uint16     `appkit:"u16"`
	U32    uint32     `appkit:"u32"`
	U64    uint64     `appkit:"u64"`
	Uptr   uintptr    `appkit:"uptr"`
	F32    float32    `appkit:"f32"`
	F64    float64    `appkit:"f64"`
	At     time.Time  `appkit:"at"`
	Due    Day        `appkit:"due"`
	DueAt  time.Time  `appkit:"dueAt,day"`
	Tags   []string   `appkit:"tags"`
	Owner  string     `appkit:"owner,ref=thing"`
	PName  *string    `appkit:"pName"`
	PDone  *bool      `appkit:"pDone"`
	PI     *int       `appkit:"pI"`
	PF     *float64   `appkit:"pF"`
	PAt    *time.Time `appkit:"pAt"`
	PDue   *Day       `appkit:"pDue"`
	PTags  *[]string  `appkit:"pTags"`
	OName  string     `appkit:"oName,omitempty"`
	OI     int        `appkit:"oI,omitempty"`
	OF     float64    `appkit:"oF,omitempty"`
	OAt    time.Time  `appkit:"oAt,omitempty"`
	ODue   Day        `appkit:"oDue,omitempty"`
	OTags  []string   `appkit:"oTags,omitempty"`
	ODone  bool       `appkit:"oDone,omitempty"`
	OPName *string    `appkit:"oPName,omitempty"`
	Raw    Day        `appkit:"raw"` // any Year, Month and Day, in the calendar or not
}

// decodeNumbers decodes JSON with numbers kept as their text, so that two
// encodings compare digit for digit.
func decodeNumbers(t *testing.T, what string, b []byte) any {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("%s is not valid JSON: %q", what, b)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// wireTime is the reference form of a date-time: encoding/json of the
// time formatted by the time package itself.
func wireTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Format(timeLayout)
}

// wireDay is the reference form of a day, or nil for the zero Day.
func wireDay(d Day) any {
	if d.IsZero() {
		return nil
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// wireFloat is a float as encoding/json writes it (null where it refuses
// NaN and ±Inf).
func wireFloat(f float64, bits int) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	if bits == 32 {
		return float32(f)
	}
	return f
}

// FuzzEncodeDifferential compares appkit's encoders (the unsafe struct
// encoder, the map encoder of a declared schema, and the schema-free one of
// computed schemas) with encoding/json, value by value, for every kind of
// value: both outputs are decoded with numbers kept as text and compared,
// so a digit, an escape, a dropped key or invalid JSON shows.
func FuzzEncodeDifferential(f *testing.F) {
	f.Add("plain", true, int64(42), uint64(7), 1.5, int64(1718272800_123), int32(0), 2024, 6, 13, "a\x00b", byte(0), false)
	f.Add("<html> & \"quotes\" \\ \u2028 \xff", false, int64(-1<<63), uint64(1<<64-1), math.Inf(1), int64(-62135596800_000), int32(-12*3600-1800), 1, 1, 1, "", byte(0xff), true)
	f.Add("", false, int64(0), uint64(0), 0.0, int64(0), int32(14*3600), 9999, 12, 31, "\x00", byte(0x55), false)
	f.Add("e", true, int64(1e15), uint64(1e19), 1e21, int64(253402300799_999), int32(30), -5, 0, 0, "x\x00\x00y", byte(1), true)
	f.Add("m", true, int64(3), uint64(3), 1e-7, int64(1), int32(-30), 10000, 2, 29, "\xc3\x28", byte(0xaa), false)
	f.Add("-", false, int64(-1), uint64(300), -0.1, int64(-1), int32(-3600), 1969, 12, 31, "a", byte(0x1f), true)
	f.Add("big", true, int64(1<<53+1), uint64(1<<32), 123456789.125, int64(1e15), int32(5*3600+45*60), 2262, 4, 11, "é\x00ü", byte(0x40), false)
	f.Add("raw", false, int64(5), uint64(5), 2.0, int64(7), int32(0), 2026, -140, 100, "", byte(0), false)
	items := reflect.TypeFor[fuzzItem]()
	s, errs := schemaOf(items, "Fuzz")
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	maps := newMapSchema([]Field{ID(), Text("name", "N"), Bool("done", "D"), Integer("i", "I"), Number("f64", "F"),
		DateTimeField("at", "At"), DayField("due", "Due"), TextArray("tags", "Tags"), Ref("owner", "O", "thing")})
	f.Fuzz(func(t *testing.T, str string, b bool, i int64, u uint64, fl float64, nanos int64, zone int32, y, m, d int, tagsRaw string, nils byte, delta bool) {
		raw := Day{y, time.Month(m), d}
		// A day the calendar knows (Day's documented domain: a year of
		// 1 to 9999, a real month and day); a zone within ±18 h.
		y, m, d = 1+abs(y)%9999, 1+abs(m)%12, 1+abs(d)%28
		zone %= 18 * 3600
		// nanos counts milliseconds (and the nanoseconds below them), so
		// that years far outside 0001..9999 are reached too.
		at := time.Unix(nanos/1000, (nanos%1000)*1e6+int64(abs(int(zone))%1e6)).In(time.FixedZone("", int(zone)))
		day := Day{y, time.Month(m), d}
		dueAt := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.FixedZone("", int(zone)))
		if nils&64 != 0 {
			dueAt = dueAt.Add(time.Duration(1 + abs(int(nanos%86_399_000_000_000))))
		}
		var tags []string
		if tagsRaw != "" {
			tags = strings.Split(tagsRaw, "\x00")
		}
		it := fuzzItem{ID: i, Name: str, Done: b, I: int(i), I8: int8(i), I16: int16(i), I32: int32(i), I64: i,
			U: uint(u), U8: uint8(u), U16: uint16(u), U32: uint32(u), U64: u, Uptr: uintptr(u), F32: float32(fl), F64: fl,
			At: at, Due: day, DueAt: dueAt, Tags: tags, Owner: str,
			OName: str, OI: int(i), OF: fl, OAt: at, ODue: day, OTags: tags, ODone: b, Raw: raw}
		if nils&1 == 0 {
			it.PName, it.PDone, it.PI, it.PF = &str, &b, &it.I, &fl
		}
		if nils&2 == 0 {
			it.PAt, it.PDue, it.PTags = &at, &day, &tags
		}
		if nils&4 != 0 {
			it.OName, it.OI, it.OF, it.OAt, it.ODue, it.OTags, it.ODone = "", 0, 0, time.Time{}, Day{}, nil, false
		}
		if nils&8 != 0 {
			it.At, it.Due = time.Time{}, Day{}
		}
		if nils&16 == 0 {
			it.OPName = &str
		}

		// The reference: the wire values, converted as documented, encoded
		// by encoding/json.
		want := map[string]any{
			"id": strconv.FormatInt(i, 10), "name": str, "done": strconv.FormatBool(b),
			"i": int(i), "i8": int8(i), "i16": int16(i), "i32": int32(i), "i64": i,
			"u": uint(u), "u8": uint8(u), "u16": uint16(u), "u32": uint32(u), "u64": u, "uptr": uintptr(u),
			"f32": wireFloat(float64(float32(fl)), 32), "f64": wireFloat(fl, 64),
			"at": wireTime(it.At), "due": wireDay(it.Due), "tags": tags, "owner": str,
			// Outside the calendar a Day is still written as digits, as
			// String writes it: valid JSON whatever its fields hold.
			"raw": map[bool]any{true: nil, false: raw.String()}[raw.IsZero()],
		}
		switch {
		case dueAt.IsZero():
			want["dueAt"] = nil // the zero time is no value, in a day field as in a date-time one
		case isMidnight(dueAt):
			want["dueAt"] = wireDay(DayOf(dueAt))
		default:
			want["dueAt"] = wireTime(dueAt)
		}
		if it.PName != nil {
			want["pName"], want["pDone"], want["pI"], want["pF"] = str, strconv.FormatBool(b), int(i), wireFloat(fl, 64)
		}
		if it.PAt != nil {
			want["pAt"], want["pDue"], want["pTags"] = wireTime(at), wireDay(day), tags
		}
		for k, v := range map[string]any{"oName": it.OName, "oI": it.OI, "oF": it.OF, "oAt": it.OAt, "oDue": it.ODue, "oTags": it.OTags, "oDone": it.ODone} {
			if !reflect.ValueOf(v).IsZero() && !(k == "oTags" && len(it.OTags) == 0) {
				switch x := v.(type) {
				case time.Time:
					want[k] = wireTime(x)
				case Day:
					want[k] = wireDay(x)
				case bool:
					want[k] = strconv.FormatBool(x)
				case float64:
					want[k] = wireFloat(x, 64)
				default:
					want[k] = v
				}
			}
		}
		if it.OPName != nil {
			want["oPName"] = str
		}
		if delta {
			want["__syncAction"] = "SET"
		}
		ref, err := json.Marshal(want)
		if err != nil {
			t.Fatalf("reference: %v", err)
		}
		got := s.encode(nil, unsafe.Pointer(&it), delta)
		if g, w := decodeNumbers(t, "struct encoding", got), decodeNumbers(t, "reference", ref); !reflect.DeepEqual(g, w) {
			t.Fatalf("struct encoding differs from encoding/json:\ngot  %s\nwant %s", got, ref)
		}

		// The same values as an Item of a declared schema, and of a
		// computed one (FieldsFunc: no schema at hand).
		item := Item{"id": i, "name": str, "done": b, "i": i, "f64": fl, "at": it.At, "due": it.Due, "tags": tags, "owner": str}
		wantMap := map[string]any{"id": strconv.FormatInt(i, 10), "name": str, "done": strconv.FormatBool(b), "i": i,
			"f64": wireFloat(fl, 64), "at": wireTime(it.At), "due": wireDay(it.Due), "tags": tags, "owner": str}
		if delta {
			wantMap["__syncAction"] = "SET"
		}
		ref, err = json.Marshal(wantMap)
		if err != nil {
			t.Fatalf("reference: %v", err)
		}
		pp := &pageProblems{typ: "fuzz"}
		got = maps.encode(nil, item, delta, pp)
		if g, w := decodeNumbers(t, "map encoding", got), decodeNumbers(t, "reference", ref); !reflect.DeepEqual(g, w) {
			t.Fatalf("map encoding differs from encoding/json:\ngot  %s\nwant %s", got, ref)
		}
		if pp.mistake != "" {
			t.Fatalf("map encoding: mistake %s", pp.mistake)
		}
		pp = &pageProblems{typ: "fuzz"}
		got = encodeDynamic(nil, item, delta, pp)
		if g, w := decodeNumbers(t, "schema-free encoding", got), decodeNumbers(t, "reference", ref); !reflect.DeepEqual(g, w) {
			t.Fatalf("schema-free encoding differs from encoding/json:\ngot  %s\nwant %s", got, ref)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == math.MinInt {
			return 0
		}
		return -n
	}
	return n
}
