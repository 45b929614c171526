package appkit

// The log keys of appkit's and appkit/upstream's lines (the table in the
// package doc's Logging section says what each holds). An app's own lines
// read best with the same keys.
const (
	LogKeyRequestID = "request_id"
	LogKeyMethod    = "method"
	LogKeyHost      = "host"
	LogKeyPath      = "path"
	LogKeyStatus    = "status"
	LogKeyDuration  = "duration"
	LogKeyAttempt   = "attempt"
	LogKeyType      = "type"
	LogKeyAction    = "action"
	LogKeyError     = "error"
	LogKeyPanic     = "panic"
	LogKeyStack     = "stack"
	LogKeyRule      = "rule"
	LogKeyViolation = "violation"
	LogKeyProbe     = "probe"
)
