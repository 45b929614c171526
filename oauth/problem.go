package oauth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// problem reads what a provider said in a failing answer: the OAuth
// Problem Reporting extension (oauth_problem, oauth_problem_advice), a JSON
// error ({error, error_description}, {errors: [{code, message}]},
// {message}), or else the text itself (HTML is reduced to "an HTML page").
// The result is not scrubbed yet.
func problem(body []byte) (code, description string) {
	b := bytes.TrimSpace(body)
	if len(b) == 0 {
		return "", ""
	}
	if b[0] == '{' {
		if c, d, ok := jsonProblem(b); ok {
			return c, d
		}
	}
	if b[0] == '<' {
		return "", "an HTML page"
	}
	if bytes.Contains(b, []byte("oauth_problem=")) {
		if v, err := url.ParseQuery(string(b)); err == nil {
			if c := v.Get("oauth_problem"); c != "" {
				return c, v.Get("oauth_problem_advice")
			}
		}
	}
	return "", string(b)
}

func jsonProblem(b []byte) (code, description string, ok bool) {
	var m struct {
		Error            json.RawMessage `json:"error"`
		ErrorDescription string          `json:"error_description"`
		Message          string          `json:"message"`
		Errors           []struct {
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if json.Unmarshal(b, &m) != nil {
		return "", "", false
	}
	var s string
	switch {
	case json.Unmarshal(m.Error, &s) == nil && s != "":
		code = s
	case len(m.Error) > 0 && m.Error[0] == '{':
		var inner struct {
			Code    any    `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(m.Error, &inner) == nil {
			code, description = codeString(inner.Code), inner.Message
		}
	}
	if m.ErrorDescription != "" {
		description = m.ErrorDescription
	}
	if description == "" {
		description = m.Message
	}
	if len(m.Errors) > 0 {
		if code == "" {
			code = codeString(m.Errors[0].Code)
		}
		if description == "" {
			description = m.Errors[0].Message
		}
	}
	if code == "" && description == "" {
		return "", "", false
	}
	return code, description, true
}

func codeString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strings.TrimSuffix(fmt.Sprintf("%.0f", x), ".")
	}
	return ""
}
