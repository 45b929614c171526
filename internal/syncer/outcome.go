package syncer

// OutcomeText says the report's outcome in words for people (the CLI's
// summary, the console's run page): "coerced", "left empty" (a dropped
// value: the item is kept, that field empty); an outcome it does not know
// as it is.
func (v *ValueReport) OutcomeText() string {
	switch v.Outcome {
	case ValueCoerced:
		return "coerced"
	case ValueDropped:
		return "left empty"
	}
	return v.Outcome
}
