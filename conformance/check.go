package conformance

import (
	"sort"
)

// Severity says how much a broken check matters.
type Severity string

const (
	// Failure marks what breaks the service or a rule the protocol states:
	// a failed check of this severity fails the run.
	Failure Severity = "failure"
	// Warning marks what the service tolerates; it never fails the run.
	Warning Severity = "warning"
)

// Status is the outcome of one check on one subject.
type Status string

const (
	// Passed: the rule holds.
	Passed Status = "passed"
	// Failed: a rule of severity Failure is broken.
	Failed Status = "failed"
	// Warned: a rule of severity Warning is broken.
	Warned Status = "warning"
	// Skipped: the check could not run (Result.Why says why).
	Skipped Status = "skipped"
)

// Check describes one rule that the suite enforces.
type Check struct {
	// ID is stable and names the check in reports ("descriptor.required").
	ID string `json:"id"`
	// Title says in a few words what the check verifies.
	Title string `json:"title"`
	// Rule cites the section of docs/protocol.md that states the rule.
	Rule string `json:"rule"`
	// Severity is Failure or Warning.
	Severity Severity `json:"severity"`
}

// Sections of docs/protocol.md cited by the checks.
const (
	ruleDescriptor     = "docs/protocol.md#the-descriptor"
	ruleAuthentication = "docs/protocol.md#authentication"
	ruleActions        = "docs/protocol.md#external-actions"
	ruleErrors         = "docs/protocol.md#errors"
	ruleTransport      = "docs/protocol.md#transport"
	ruleLogo           = "docs/protocol.md#logo"
	ruleValidate       = "docs/protocol.md#accounts-and-validate"
	ruleOAuth          = "docs/protocol.md#oauth"
	ruleConfig         = "docs/protocol.md#config"
	ruleFilters        = "docs/protocol.md#filters"
	ruleDatalist       = "docs/protocol.md#datalists"
	ruleFilterValidate = "docs/protocol.md#filter-validation"
	ruleSchema         = "docs/protocol.md#schema"
	ruleRelations      = "docs/protocol.md#relations"
	rulePaging         = "docs/protocol.md#paging"
	ruleItems          = "docs/protocol.md#items"
	ruleDelta          = "docs/protocol.md#delta-synchronization"
	ruleWebhooks       = "docs/protocol.md#webhooks"
	ruleLimits         = "docs/protocol.md#timeouts-and-limits"
)

// The checks of the suite, by id. Each check is evaluated on one or more
// subjects (an endpoint, a type, an authentication, an action).
const (
	CheckDescriptorAnswer     = "descriptor.answer"
	CheckDescriptorRequired   = "descriptor.required"
	CheckDescriptorSources    = "descriptor.sources"
	CheckDescriptorAuth       = "descriptor.authentication"
	CheckDescriptorAuthFields = "descriptor.auth-fields"
	CheckDescriptorActions    = "descriptor.actions"
	CheckDescriptorResponsib  = "descriptor.responsible-for"
	CheckDescriptorExtra      = "descriptor.id-and-type"

	CheckContentType   = "transport.content-type"
	CheckLogo          = "transport.logo"
	CheckErrorBody     = "errors.message-body"
	CheckMalformedBody = "errors.malformed-body"
	CheckMissingField  = "errors.missing-field"
	CheckUnknownType   = "errors.unknown-type"
	CheckClientStatus  = "errors.client-status"
	CheckNoAnswer      = "transport.answers"
	CheckSlow          = "transport.slow"

	CheckValidateAccount = "accounts.validate"
	CheckRejectGarbage   = "accounts.reject-garbage"
	CheckRejectUnknownID = "accounts.reject-unknown-auth"
	CheckOAuthAuthorize  = "accounts.oauth-authorize"

	CheckConfig            = "sync.config"
	CheckFilters           = "sync.filters"
	CheckDatalist          = "sync.datalist"
	CheckDatalistField     = "sync.datalist-field"
	CheckDatalistDependsOn = "sync.datalist-depends-on"
	CheckFilterValidate    = "sync.filter-validate"
	CheckFilterInvalid     = "sync.filter-invalid"

	CheckSchemaTypes      = "schema.types"
	CheckSchemaIDName     = "schema.id-and-name"
	CheckSchemaFieldTypes = "schema.field-types"
	CheckSchemaRelations  = "schema.relations"
	CheckSchemaRelOnce    = "schema.relation-once"
	CheckSchemaUnknown    = "schema.unknown-type"

	CheckPageShape     = "data.page"
	CheckPagingEnds    = "data.paging-ends"
	CheckItemsSchema   = "data.items-match-schema"
	CheckItemsExtra    = "data.items-extra-keys"
	CheckItemsWireForm = "data.items-wire-form"
	CheckIDsUnique     = "data.ids-unique"
	CheckDeterministic = "data.deterministic"
	CheckDelta         = "data.delta"
	CheckDeltaDeclared = "data.delta-declared"

	CheckWebhookInstall   = "webhooks.install"
	CheckWebhookDelete    = "webhooks.delete"
	CheckWebhookVerify    = "webhooks.verify"
	CheckWebhookTransform = "webhooks.transform"

	CheckActionUnknown = "actions.unknown-action"
	CheckActionArgs    = "actions.missing-args"
)

var catalog = map[string]Check{}

func def(id, title, rule string, sev Severity) {
	if _, dup := catalog[id]; dup {
		panic("conformance: check defined twice: " + id)
	}
	catalog[id] = Check{ID: id, Title: title, Rule: rule, Severity: sev}
}

func init() {
	def(CheckDescriptorAnswer, "GET / answers 200 with a JSON object", ruleDescriptor, Failure)
	def(CheckDescriptorRequired, "the descriptor has every required key with its type", ruleDescriptor, Failure)
	def(CheckDescriptorSources, "sources is an empty array", ruleDescriptor, Failure)
	def(CheckDescriptorAuth, "authentications: at least one, ids unique, one per OAuth version, none without fields", ruleAuthentication, Failure)
	def(CheckDescriptorAuthFields, "authentication fields: id, name, description, a known type, link value, highlightText editorMode", ruleAuthentication, Failure)
	def(CheckDescriptorActions, "actions: action, name, args with id, name and type text or textArea", ruleActions, Failure)
	def(CheckDescriptorResponsib, "responsibleFor matches what the app serves", ruleDescriptor, Failure)
	def(CheckDescriptorExtra, "the descriptor carries id and type strings", ruleDescriptor, Warning)

	def(CheckContentType, "JSON answers have content type application/json", ruleTransport, Failure)
	def(CheckLogo, "/logo answers image/svg+xml, 204 or 302", ruleLogo, Failure)
	def(CheckErrorBody, "error answers carry a JSON {message}", ruleErrors, Failure)
	def(CheckMalformedBody, "a malformed JSON body is refused with an error status", ruleErrors, Failure)
	def(CheckMissingField, "a body without a required field is refused with an error status", ruleErrors, Failure)
	def(CheckUnknownType, "data for an unknown type is refused with an error status", ruleErrors, Failure)
	def(CheckClientStatus, "a client's mistake is answered 4xx, not 5xx", ruleErrors, Warning)
	def(CheckNoAnswer, "every request is answered within the per-request timeout", ruleLimits, Failure)
	def(CheckSlow, "answers come within the slow-answer bound", ruleLimits, Warning)

	def(CheckValidateAccount, "the given account validates: 200 {name}", ruleValidate, Failure)
	def(CheckRejectGarbage, "an account with garbage values is refused with 401", ruleValidate, Failure)
	def(CheckRejectUnknownID, "an unknown authentication id is refused with 401", ruleValidate, Failure)
	def(CheckOAuthAuthorize, "OAuth authorize answers a redirect_uri (carrying the state for OAuth 2)", ruleOAuth, Failure)

	def(CheckConfig, "config answers types [{id, name}] and a filters array", ruleConfig, Failure)
	def(CheckFilters, "filters: id, title, a known type, editorMode, datalist_requires naming datalist filters", ruleFilters, Failure)
	def(CheckDatalist, "a datalist answers {items: [{title, value}]}", ruleDatalist, Failure)
	def(CheckDatalistField, "a datalist honours field: an unknown field is refused", ruleDatalist, Failure)
	def(CheckDatalistDependsOn, "a dependent datalist answers with dependsOn", ruleDatalist, Failure)
	def(CheckFilterValidate, "filter/validate accepts a valid filter with 200 or 204", ruleFilterValidate, Failure)
	def(CheckFilterInvalid, "filter/validate refuses an invalid filter with 400", ruleFilterValidate, Failure)

	def(CheckSchemaTypes, "the schema has an entry for every requested type", ruleSchema, Failure)
	def(CheckSchemaIDName, "every type has an id field of type id and a name field", ruleSchema, Failure)
	def(CheckSchemaFieldTypes, "fields have a name, a known type and subType", ruleSchema, Failure)
	def(CheckSchemaRelations, "relations: cardinality, name, an existing target type and field", ruleRelations, Failure)
	def(CheckSchemaRelOnce, "a relation between two types is declared once", ruleRelations, Failure)
	def(CheckSchemaUnknown, "the schema of an unknown type is refused", ruleSchema, Warning)

	def(CheckPageShape, "data pages: 200, an items array, synchronizationType full or delta, object cursors", rulePaging, Failure)
	def(CheckPagingEnds, "paging ends: no repeated cursor, hasNext ends, within the time bound", rulePaging, Failure)
	def(CheckItemsSchema, "items match the schema: id present, values of the declared types", ruleItems, Failure)
	def(CheckItemsExtra, "items carry only keys of the schema", ruleItems, Warning)
	def(CheckItemsWireForm, "values are in the form the protocol states (booleans as text)", ruleItems, Warning)
	def(CheckIDsUnique, "ids are unique across the pages of a run", ruleItems, Failure)
	def(CheckDeterministic, "two full runs give the same ids", ruleItems, Failure)
	def(CheckDelta, "with lastSynchronizedAt, synchronizationType and __syncAction values are valid", ruleDelta, Failure)
	def(CheckDeltaDeclared, "only a type whose schema declares __syncAction answers delta pages", ruleDelta, Warning)

	def(CheckWebhookInstall, "webhook install answers an object with an id", ruleWebhooks, Failure)
	def(CheckWebhookDelete, "webhook delete answers 200 or 204", ruleWebhooks, Failure)
	def(CheckWebhookVerify, "webhook verify answers {id} or an error", ruleWebhooks, Failure)
	def(CheckWebhookTransform, "webhook transform answers {data: {type: [items]}} with __syncAction", ruleWebhooks, Failure)

	def(CheckActionUnknown, "executing an unknown action is refused with an error status", ruleActions, Failure)
	def(CheckActionArgs, "executing an action without its arguments is refused with an error status", ruleActions, Failure)
}

// Checks returns every check of the suite, sorted by id.
func Checks() []Check {
	out := make([]Check, 0, len(catalog))
	for _, c := range catalog {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Result is the outcome of one check on one subject.
type Result struct {
	Check
	// Subject is what was checked: an endpoint, a type, an authentication,
	// an action; empty when the check concerns the app as a whole.
	Subject string `json:"subject,omitempty"`
	// Status is passed, failed, warning or skipped.
	Status Status `json:"status"`
	// Expected says what the rule wants (failed and warning results).
	Expected string `json:"expected,omitempty"`
	// Got says what came back instead (failed and warning results).
	Got string `json:"got,omitempty"`
	// Why says why a check was skipped.
	Why string `json:"why,omitempty"`
}

// Name is the check's id followed by the subject in brackets, if any.
func (r Result) Name() string {
	if r.Subject == "" {
		return r.ID
	}
	return r.ID + " [" + r.Subject + "]"
}
