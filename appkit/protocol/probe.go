package protocol

// ProbeHeader marks a request of the conformance suite, which may be meant
// to be refused; its value, a [ProbeID], names what sent it (the stage of
// checks). appkit logs a probe's 4xx at info level, with its id, so that
// an app's log tells the refusals the suite provokes from real failures.
const ProbeHeader = "X-Appkit-Probe"

// MaxProbeID bounds a probe id, in bytes.
const MaxProbeID = 64

// ProbeID is v as a probe id, as sent and as logged: at most [MaxProbeID]
// bytes, each byte that is not an ASCII letter or digit, '.', '_' or '-'
// replaced by '_'; "" when v is empty.
func ProbeID(v string) string {
	b := []byte(v[:min(len(v), MaxProbeID)])
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}
