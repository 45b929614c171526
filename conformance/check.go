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
	// Source says where the rule comes from: for a Failure, the sentence of
	// the protocol that requires it (a must, a required field, a stated
	// status); for a Warning, whose choice or tolerance it is.
	Source string `json:"source"`
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
	CheckDescriptorUniqueIDs  = "descriptor.unique-ids"
	CheckDescriptorResponsib  = "descriptor.responsible-for"
	CheckDescriptorExtra      = "descriptor.id-and-type"
	CheckDescriptorArgSpell   = "descriptor.arg-type-spelling"

	CheckContentType      = "transport.content-type"
	CheckContentTypeOther = "transport.content-type-other"
	CheckLogo             = "transport.logo"
	CheckErrorBody        = "errors.message-body"
	CheckMalformedBody    = "errors.malformed-body"
	CheckMissingField     = "errors.missing-field"
	CheckUnknownType      = "errors.unknown-type"
	CheckClientStatus     = "errors.client-status"
	CheckMistakeAnswers   = "errors.mistake-answers"
	CheckNoAnswer         = "transport.answers"
	CheckSlow             = "transport.slow"

	CheckValidateAccount = "accounts.validate"
	CheckRejectGarbage   = "accounts.reject-garbage"
	CheckRejectUnknownID = "accounts.reject-unknown-auth"
	CheckOAuthAuthorize  = "accounts.oauth-authorize"

	CheckConfig              = "sync.config"
	CheckSyncUniqueIDs       = "sync.unique-ids"
	CheckFilters             = "sync.filters"
	CheckDatalist            = "sync.datalist"
	CheckDatalistField       = "sync.datalist-field"
	CheckDatalistDependsOn   = "sync.datalist-depends-on"
	CheckFilterValidate      = "sync.filter-validate"
	CheckFilterInvalid       = "sync.filter-invalid"
	CheckFilterInvalidStatus = "sync.filter-invalid-status"

	CheckSchemaTypes      = "schema.types"
	CheckSchemaIDName     = "schema.id-and-name"
	CheckSchemaFieldTypes = "schema.field-types"
	CheckSchemaRelations  = "schema.relations"
	CheckSchemaRelOnce    = "schema.relation-once"
	CheckSchemaUnknown    = "schema.unknown-type"

	CheckPageShape     = "data.page"
	CheckPagingEnds    = "data.paging-ends"
	CheckCursorRepeats = "data.cursor-repeats"
	CheckPageRepeats   = "data.page-repeats"
	CheckItemsSchema   = "data.items-match-schema"
	CheckItemsExtra    = "data.items-extra-keys"
	CheckItemsWireForm = "data.items-wire-form"
	CheckIDsUnique     = "data.ids-unique"
	CheckDeterministic = "data.deterministic"
	CheckDelta         = "data.delta"
	CheckSyncTypeMixed = "data.sync-type-mixed"
	CheckDeltaDeclared = "data.delta-declared"

	CheckWebhookInstall   = "webhooks.install"
	CheckWebhookDelete    = "webhooks.delete"
	CheckWebhookRefused   = "webhooks.refused"
	CheckWebhookVerify    = "webhooks.verify"
	CheckWebhookTransform = "webhooks.transform"

	CheckActionUnknown = "actions.unknown-action"
	CheckActionArgs    = "actions.missing-args"
)

var catalog = map[string]Check{}

func def(id, title, rule string, sev Severity, source string) {
	if _, dup := catalog[id]; dup {
		panic("conformance: check defined twice: " + id)
	}
	catalog[id] = Check{ID: id, Title: title, Rule: rule, Severity: sev, Source: source}
}

// The catalog. A check is a Failure only when a sentence of the protocol
// requires what it checks; its Source says which, in the project's words.
// What is appkit's own choice, or what the service is known to tolerate, is
// a Warning, and its Source says so.
func init() {
	defineDescriptorChecks()
	defineTransportChecks()
	defineAccountChecks()
	defineConfigChecks()
	defineSchemaChecks()
	defineDataChecks()
	defineWebhookChecks()
	defineActionChecks()
}

// defineDescriptorChecks defines the checks of the descriptor (GET /).
func defineDescriptorChecks() {
	def(CheckDescriptorAnswer, "GET / answers 200 with a JSON object", ruleDescriptor, Failure,
		"Endpoints required of every app: GET / answers the app descriptor, a JSON object (the service's own tests expect 200 and JSON).")
	def(CheckDescriptorRequired, "the descriptor has every required key with its type", ruleDescriptor, Failure,
		"The descriptor: every key is required; name, website, version and description are strings, authentication and sources arrays, responsibleFor an object of booleans, actions an array.")
	def(CheckDescriptorSources, "sources is an empty array", ruleDescriptor, Failure,
		"The descriptor: sources is always an empty array.")
	def(CheckDescriptorAuth, "authentications: at least one, each with id and name, one per OAuth version, none without fields", ruleAuthentication, Failure,
		"Authentication and limits: at least one authentication is required, each with an id and a name; at most one per OAuth version; the none authentication has no fields.")
	def(CheckDescriptorAuthFields, "authentication fields: id, name, description, a known type, link value, highlightText editorMode", ruleAuthentication, Failure,
		"Authentication fields: id, name, type (one of the protocol's field types) and description are required; link needs its value, highlightText an editorMode json or sql.")
	def(CheckDescriptorActions, "actions: action, name, args with id, name and type text or textArea", ruleActions, Failure,
		"External actions: an action has action, name and args; an argument has id, name and a type that is text or textArea.")
	def(CheckDescriptorArgSpell, "action argument types are spelled as the protocol spells them (textArea, not textarea)", ruleActions, Warning,
		"appkit's choice: an argument's type is matched case-insensitively (textarea is read as textArea), since the two types differ by more than case; the protocol spells them text and textArea.")
	def(CheckDescriptorUniqueIDs, "ids of authentications, their fields, actions and arguments are unique", ruleAuthentication, Warning,
		"appkit's choice: these ids are keys (of the account, of args), so a repeated one hides another; the protocol does not say so, and the host keeps the first.")
	def(CheckDescriptorResponsib, "responsibleFor matches what the app serves", ruleDescriptor, Warning,
		"appkit's choice: the protocol says what responsibleFor means but ties it to no endpoint; the host tolerates dataSynchronization not true. A refused config fails sync.config.")
	def(CheckDescriptorExtra, "the descriptor carries id and type strings", ruleDescriptor, Warning,
		"The service's samples carry id and type, but they are not among the descriptor's required keys.")
}

// defineTransportChecks defines the checks of transport and error answers, on every endpoint.
func defineTransportChecks() {
	def(CheckContentType, "answers of /, /validate, config, schema and data have content type application/json", ruleTransport, Failure,
		"Endpoints: the service's tests expect a JSON content type from /, /validate, config, schema and data.")
	def(CheckContentTypeOther, "the other JSON answers have content type application/json", ruleTransport, Warning,
		"Bodies and answers are JSON, but the protocol names the content type only for /, /validate, config, schema and data; the host also reads text/plain or no type as JSON.")
	def(CheckLogo, "/logo answers image/svg+xml, 204 or 302 (an error status means no logo)", ruleLogo, Failure,
		"Logo (optional): 200 with image/svg+xml, 204 without a logo, or 302 to the logo; without a logo or on an error the default logo is used.")
	def(CheckErrorBody, "error answers to the service's requests carry a JSON {message}", ruleErrors, Failure,
		"Errors: any endpoint answers a failure with an error status and a JSON body {message}; tryLater, when sent, is a boolean. Requests the service never sends are errors.mistake-answers'; a 404 or 405 of an optional endpoint the app does not serve is no failure.")
	def(CheckMalformedBody, "a malformed JSON body is refused with an error status", ruleErrors, Warning,
		"appkit's choice: the service never sends a malformed body, so the protocol says nothing of one.")
	def(CheckMissingField, "a body without a required field is refused with an error status", ruleErrors, Warning,
		"appkit's choice: the service always sends the keys an endpoint takes (an app may ignore id or requestedType).")
	def(CheckUnknownType, "data for an unknown type is refused with an error status", ruleErrors, Warning,
		"appkit's choice: the service asks for data only of types of the config answer.")
	def(CheckClientStatus, "a client's mistake is answered 4xx, not 5xx", ruleErrors, Warning,
		"appkit's choice: the protocol names no status for a client's mistake.")
	def(CheckMistakeAnswers, "requests the service never sends are answered, and refused with a JSON {message}", ruleErrors, Warning,
		"appkit's choice: the service never sends a malformed body, an unknown type, id, field or action, or a value of the wrong type, so how an app refuses one (a framework's own error page) breaks no rule.")
	def(CheckNoAnswer, "every request is answered within the per-request timeout", ruleLimits, Failure,
		"Endpoints: each request the service sends is answered, with the answer the protocol gives or an error; the suite waits Config.Timeout for it.")
	def(CheckSlow, "answers come within the slow-answer bound", ruleLimits, Warning,
		"The protocol sets no time limits; the bound is the suite's.")
}

// defineAccountChecks defines the checks of accounts: validate and the OAuth flows.
func defineAccountChecks() {
	def(CheckValidateAccount, "the given account validates: 200 {name}", ruleValidate, Failure,
		"Accounts and validate: a valid account is answered 200 with {name} (an error with tryLater, a failure that may pass later, skips the check).")
	def(CheckRejectGarbage, "an account with garbage values is refused with 401", ruleValidate, Failure,
		"Accounts and validate: an invalid account is answered 401 with {message} (an error with tryLater, a failure that may pass later, skips the check).")
	def(CheckRejectUnknownID, "an unknown authentication id is refused with 401", ruleValidate, Warning,
		"appkit's choice: the service sends only authentication ids the app declares; the protocol says nothing of another.")
	def(CheckOAuthAuthorize, "OAuth authorize answers a redirect_uri (carrying the state for OAuth 2)", ruleOAuth, Failure,
		"OAuth: authorize answers {redirect_uri} where the user is sent; OAuth 2's must include the state; OAuth 1's comes with token and secret.")
}

// defineConfigChecks defines the checks of config, filters and datalists.
func defineConfigChecks() {
	def(CheckConfig, "config answers types [{id, name}], filters and webhooks of their types", ruleConfig, Failure,
		"Config: types is an array of type descriptors {id, name} (strings); filters, when sent, an array; webhooks, when sent, {enabled: boolean}.")
	def(CheckSyncUniqueIDs, "type and filter ids are non-empty and unique, a sync app offers a type, no datalist depends on itself", ruleConfig, Warning,
		"appkit's choice: type and filter ids key the schema and the filter object, but the protocol does not require them non-empty or unique, nor a type at all.")
	def(CheckFilters, "filters: id, title, a known type, editorMode, datalist_requires naming filters", ruleFilters, Failure,
		"Filters: id, title and type (a field type other than password) are required; highlightText needs editorMode json or sql; datalist_requires is an array of filter ids; datalist, optional and secured are booleans.")
	def(CheckDatalist, "a datalist answers {items: [{title, value}]}", ruleDatalist, Failure,
		"Datalists: the answer is {items: [{title, value}]}.")
	def(CheckDatalistField, "a datalist honours field: an unknown field is refused", ruleDatalist, Warning,
		"appkit's choice: the service asks only for the lists of filters declared with datalist.")
	def(CheckDatalistDependsOn, "a dependent datalist answers with dependsOn", ruleDatalist, Failure,
		"Datalists: a list whose filter has datalist_requires gets their values in dependsOn and answers {items: [{title, value}]}.")
	def(CheckFilterValidate, "filter/validate accepts a valid filter with 200 or 204", ruleFilterValidate, Failure,
		"Filter validation (optional): a valid filter is answered 200 or 204.")
	def(CheckFilterInvalid, "filter/validate refuses a filter value of the wrong type", ruleFilterValidate, Warning,
		"appkit's choice: the service sends only values its form produced; the protocol leaves what is invalid to the app.")
	def(CheckFilterInvalidStatus, "a filter refused by filter/validate is answered 400", ruleFilterValidate, Failure,
		"Filter validation and errors: an invalid filter is answered 400 with {message}.")
}

// defineSchemaChecks defines the checks of the schema.
func defineSchemaChecks() {
	def(CheckSchemaTypes, "the schema has an entry for every requested type", ruleSchema, Failure,
		"Schema: the answer has an entry for every requested type, an object of field descriptions by field id.")
	def(CheckSchemaIDName, "every type has an id field of type id and a name field", ruleSchema, Failure,
		"Schema: every type must contain an id field of type id and a name field.")
	def(CheckSchemaFieldTypes, "fields have a name, a known type and subType", ruleSchema, Failure,
		"Schema: a field has a name (required) and a type among id, text, number, date and array[text]; a subType among those listed (with the service's date-time-range, single-select, multi-select, workflow and day); description, readonly and ignore of their types; its id is its key.")
	def(CheckSchemaRelations, "relations: cardinality, name, an existing target type and field", ruleRelations, Failure,
		"Relations: cardinality is many-to-one or many-to-many, name is a string, targetType the id of a type of the app, targetFieldId a field of that type.")
	def(CheckSchemaRelOnce, "a relation between two types is declared once", ruleRelations, Failure,
		"Relations: a relation between two types is declared once only; declaring it on both sides duplicates it.")
	def(CheckSchemaUnknown, "the schema of an unknown type is refused", ruleSchema, Warning,
		"appkit's choice: the service asks only for types of the config answer.")
}

// defineDataChecks defines the checks of data pages, their items and delta.
func defineDataChecks() {
	def(CheckPageShape, "data pages: 200, an items array, synchronizationType full or delta, object cursors", rulePaging, Failure,
		"Data and paging: the answer has items (an array); pagination, when sent, has hasNext (a boolean) and nextPageConfig (an object); synchronizationType is full or delta.")
	def(CheckPagingEnds, "paging ends: hasNext turns false within the suite's bounds", rulePaging, Failure,
		"Paging: the service follows nextPageConfig until hasNext is false, so a run must end; the suite takes Config.MaxPages pages or Config.RunTimeout for never.")
	def(CheckCursorRepeats, "a run never sends the same nextPageConfig twice", rulePaging, Failure,
		"Paging: nextPageConfig must differ from page to page. The sync stops the type at once on a cursor sent before in the run, so the items after it would never come; the suite stops walking the type there too.")
	def(CheckPageRepeats, "a page never repeats the ids of an earlier page of the run", rulePaging, Failure,
		"Paging: the service follows nextPageConfig page after page until hasNext is false, each page moving on. A page of two or more items whose ids are exactly those of an earlier page says the paging went back: the sync stops the type at once, so the items after it would never come; the suite stops walking the type there too.")
	def(CheckItemsSchema, "items match the schema: id present, values of the declared types", ruleItems, Failure,
		"Items: objects keyed by the schema's field ids, with the id field (a string) set, each value of its field's declared type.")
	def(CheckItemsExtra, "items carry only keys of the schema", ruleItems, Warning,
		"The service's tolerance: keys outside the schema are ignored.")
	def(CheckItemsWireForm, "values in the form the protocol states; others are converted, named", ruleItems, Warning,
		"The service's tolerance: it converts values it accepts in other forms (a JSON boolean in a boolean text field, locale, RFC 1123 and Date.toString dates, epoch milliseconds, an array of strings in a text or Markdown field, a numeric string in a number field), and the host converts them alike; the result names the conversion.")
	def(CheckIDsUnique, "ids are unique across the pages of a run", ruleItems, Warning,
		"appkit's choice: ids identify items, but the protocol does not forbid sending one twice; the host keeps the later item.")
	def(CheckDeterministic, "two full runs give the same ids", ruleItems, Warning,
		"appkit's check: an app's data may change between two runs; the protocol requires nothing of it.")
	def(CheckDelta, "with lastSynchronizedAt, synchronizationType and __syncAction values are valid", ruleDelta, Failure,
		"Delta synchronization: synchronizationType is full or delta; every item of a delta page carries __syncAction, SET or REMOVE.")
	def(CheckSyncTypeMixed, "a run's pages are all full or all delta, and REMOVE comes only in delta pages", ruleDelta, Warning,
		"The service's tolerance: the protocol does not forbid mixing; the host treats a type as delta once one page is.")
	def(CheckDeltaDeclared, "only a type whose schema declares __syncAction answers delta pages", ruleDelta, Warning,
		"The service's tolerance: __syncAction is declared when delta synchronization with removals is supported; the host applies delta pages anyway.")
}

// defineWebhookChecks defines the checks of webhooks.
func defineWebhookChecks() {
	def(CheckWebhookInstall, "webhook install answers an object with an id", ruleWebhooks, Failure,
		"Webhooks: install answers an object with a required id and optional events (an array of strings).")
	def(CheckWebhookDelete, "webhook delete answers 200 or 204, or an error status", ruleWebhooks, Failure,
		"Webhooks: delete answers 200 or 204 when deleted, otherwise an error status with {message}.")
	def(CheckWebhookRefused, "the webhook is installed and deleted again, not refused", ruleWebhooks, Warning,
		"appkit's check: the protocol lets install and delete fail with an error status (the suite's target address is not reachable).")
	def(CheckWebhookVerify, "webhook verify answers {id} or an error", ruleWebhooks, Failure,
		"Webhooks: verify answers {id} of the webhook for a valid event, an error status with {message} otherwise.")
	def(CheckWebhookTransform, "webhook transform answers {data: {type: [items]}} with __syncAction", ruleWebhooks, Failure,
		"Webhooks: transform answers {data: {<type id>: [items]}}, every item with an id and __syncAction.")
}

// defineActionChecks defines the checks of external actions.
func defineActionChecks() {
	def(CheckActionUnknown, "executing an unknown action is refused with an error status", ruleActions, Warning,
		"appkit's choice: the service executes only declared actions.")
	def(CheckActionArgs, "executing an action without its arguments is refused with an error status", ruleActions, Warning,
		"appkit's choice: the protocol cannot mark an argument optional, so an action may run without arguments (and then runs for real).")
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
