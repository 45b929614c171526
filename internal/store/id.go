package store

import "github.com/google/uuid"

// NewEntityID returns a fresh platform/id: a version 7 UUID, whose first 48 bits
// are the Unix time in milliseconds (then a counter within the millisecond
// and random bits), so that ids created one after another sort one after
// another and inserts append to the primary-key index instead of landing
// all over it. It is still a valid RFC 9562 UUID in canonical lower-case
// form, as platform/id requires.
//
// Document secrets are not ids: they grant access and stay version 4
// (122 random bits); see newSecret.
func NewEntityID() string {
	u, err := uuid.NewV7()
	if err != nil {
		// Only a failing crypto/rand gets here; so does uuid.NewString.
		panic(err)
	}
	return u.String()
}

// newSecret returns a fresh random (version 4) uuid for a capability such
// as a rich-text document's secret.
func newSecret() string { return uuid.NewString() }
