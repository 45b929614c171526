package oauthtest

import (
	"strings"
	"testing"
)

// The example of RFC 5849 section 3.4.1.1.
func TestSignatureBaseRFC5849Example(t *testing.T) {
	h := `OAuth realm="Example", oauth_consumer_key="9djdj82h48djs9d2", oauth_token="kkk9d7dh3k39sjv7", ` +
		`oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131201", oauth_nonce="7d8f3e4a", ` +
		`oauth_signature="bYT5CMsGcbgUdFHObYMEfcx6bsw%3D"`
	hp, err := parseAuthorization(h)
	if err != nil {
		t.Fatal(err)
	}
	pairs := [][2]string{{"b5", "=%3D"}, {"a3", "a"}, {"c@", ""}, {"a2", "r b"}, {"c2", ""}, {"a3", "2 q"}}
	for _, kv := range hp {
		if kv[0] != "realm" && kv[0] != "oauth_signature" {
			pairs = append(pairs, kv)
		}
	}
	got := signatureBase("post", "http://example.com/request", pairs)
	want := "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q" +
		"%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_" +
		"key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_m" +
		"ethod%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk" +
		"9d7dh3k39sjv7"
	if got != want {
		t.Fatalf("base string\n got %s\nwant %s", got, want)
	}
}

func TestParseAuthorization(t *testing.T) {
	cases := []struct {
		in      string
		want    string // name=value;... or "" for an error
		wantErr bool
	}{
		{in: `OAuth a="1", b="x%20y"`, want: "a=1;b=x y"},
		{in: `oauth   a="1",b=""`, want: "a=1;b="},
		{in: `OAuth `, want: ""},
		{in: `Bearer abc`, wantErr: true},
		{in: `OAuth a=1`, wantErr: true},
		{in: `OAuth a="1`, wantErr: true},
		{in: `OAuth ="1"`, wantErr: true},
		{in: `OAuth a="%zz"`, wantErr: true},
		{in: `OAuth a="` + strings.Repeat("x", 9000) + `"`, wantErr: true},
	}
	for _, tc := range cases {
		got, err := parseAuthorization(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("%.40q: no error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%.40q: %v", tc.in, err)
			continue
		}
		var parts []string
		for _, kv := range got {
			parts = append(parts, kv[0]+"="+kv[1])
		}
		if s := strings.Join(parts, ";"); s != tc.want {
			t.Errorf("%.40q = %q, want %q", tc.in, s, tc.want)
		}
	}
}

func FuzzParseAuthorization(f *testing.F) {
	f.Add(`OAuth realm="Example", oauth_consumer_key="9djdj82h48djs9d2", oauth_signature="bYT5%3D"`)
	f.Add(`OAuth a="", b="%2B"`)
	f.Add(`oauth ,,,`)
	f.Fuzz(func(t *testing.T, h string) {
		pairs, err := parseAuthorization(h)
		if err != nil {
			return
		}
		// What parses re-encodes into a header that parses the same way.
		var parts []string
		for _, kv := range pairs {
			if kv[0] == "" {
				t.Fatalf("empty name from %q", h)
			}
			parts = append(parts, encode(kv[0])+`="`+encode(kv[1])+`"`)
		}
		header := "OAuth " + strings.Join(parts, ", ")
		if len(header) > 8<<10 {
			return // encoding grew it past the size limit
		}
		again, err := parseAuthorization(header)
		if err != nil || len(again) != len(pairs) {
			t.Fatalf("round trip of %q: %v %v", h, again, err)
		}
		for i := range pairs {
			if again[i] != pairs[i] {
				t.Fatalf("round trip of %q: %v != %v", h, again[i], pairs[i])
			}
		}
	})
}
