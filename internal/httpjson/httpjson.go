// Package httpjson writes the host's JSON answers: one encoding, one set of
// headers (JSON content type, nosniff, no-store) and the {message} error
// shape, shared by the host's handlers.
package httpjson

import (
	"encoding/json"
	"net/http"
)

// Write answers v as JSON with the status. A value that cannot be encoded
// answers 500 {"message": "internal error"} instead.
func Write(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"message":"internal error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// Message answers {"message": msg} with the status.
func Message(w http.ResponseWriter, status int, msg string) {
	Write(w, status, map[string]string{"message": msg})
}
