// Package protocol defines the wire format of the custom-app protocol: the
// bodies that the workspace service sends to an app's endpoints and the
// answers it expects back. docs/protocol.md ("The custom-app protocol") is
// the reference for what each key means; the comments here say it key by
// key.
//
// It is the one definition shared by the appkit SDK (which serves it), the
// conformance suite (which checks it) and the host's app client (which drives
// it). Types here are plain data with JSON tags and no behaviour beyond
// encoding; request bodies carry `validate` tags checked by the SDK with
// validator v10.
//
// Open-ended values (filter values, account fields, pagination cursors,
// webhook objects) are kept as [json.RawMessage] or maps so that nothing the
// service sends is lost on the way through.
package protocol

import "encoding/json"

// Paths of the protocol's endpoints, relative to the app's base address. The
// protocol's version lives in the paths (/api/v1, /oauth1/v1, /oauth2/v1);
// the app's own version is [Descriptor.Version].
const (
	// PathDescriptor is GET /: the app's [Descriptor]. Every app serves it.
	PathDescriptor = "/"
	// PathValidate is POST /validate: checks an account ([ValidateRequest]);
	// 200 with the account's name when valid, 401 with an [ErrorBody] when
	// refused. It also refreshes OAuth tokens. Every app serves it.
	PathValidate = "/validate"
	// PathLogo is GET /logo, optional: 200 with an SVG image, 204 for the
	// default logo, or 302 to where the logo lives.
	PathLogo = "/logo"
	// PathConfig is POST config: the types, filters and webhook support of a
	// synchronization app ([ConfigRequest], [ConfigResponse]). A 404 says the
	// app does not synchronize data.
	PathConfig = "/api/v1/synchronizer/config"
	// PathSchema is POST schema: the fields of the requested types
	// ([SchemaRequest], [Schema]).
	PathSchema = "/api/v1/synchronizer/schema"
	// PathData is POST data: one page of items of one type ([DataRequest],
	// [DataResponse]).
	PathData = "/api/v1/synchronizer/data"
	// PathDatalist is POST datalist: the options of a filter declared with
	// [Filter.Datalist] ([DatalistRequest], [DatalistResponse]).
	PathDatalist = "/api/v1/synchronizer/datalist"
	// PathFilterValidate is POST filter/validate, optional: checks the
	// user's filter values ([FilterValidateRequest]); 200 or 204 when valid,
	// 400 with an [ErrorBody] saying what is wrong otherwise.
	PathFilterValidate = "/api/v1/synchronizer/filter/validate"
	// PathResource is POST resource: a file behind an app://resource URL
	// ([ResourceRequest]), answered as the file's bytes with its own content
	// type, or 404 when there is none.
	PathResource = "/api/v1/synchronizer/resource"
	// PathWebhooks is POST webhooks (install) and DELETE webhooks (remove),
	// both with a [WebhookRequest]; served when [ConfigResponse.Webhooks]
	// announces webhooks. Install answers the [Webhook] to store; delete
	// answers 200 or 204.
	PathWebhooks = "/api/v1/synchronizer/webhooks"
	// PathWebhookVerify is POST webhooks/verify: checks an incoming event
	// and names the webhook it belongs to ([WebhookVerifyRequest],
	// [WebhookVerifyResponse]).
	PathWebhookVerify = "/api/v1/synchronizer/webhooks/verify"
	// PathWebhookXform is POST webhooks/transform: turns a verified event
	// into items ([WebhookTransformRequest], [WebhookTransformResponse]).
	PathWebhookXform = "/api/v1/synchronizer/webhooks/transform"
	// PathActionExecute is POST action/execute: runs an external action
	// ([ActionExecuteRequest]); any 2xx with {} is success.
	PathActionExecute = "/api/v1/automations/action/execute"
	// PathOAuth1Auth is POST /oauth1/v1/authorize: obtains an OAuth 1
	// request token and the provider's URL ([OAuth1AuthorizeRequest],
	// [AuthorizeResponse]). Served when an authentication has id [AuthOAuth1].
	PathOAuth1Auth = "/oauth1/v1/authorize"
	// PathOAuth1Token is POST /oauth1/v1/access_token: exchanges the
	// verifier for the account data to store ([OAuth1AccessTokenRequest]).
	PathOAuth1Token = "/oauth1/v1/access_token"
	// PathOAuth2Auth is POST /oauth2/v1/authorize: the provider's
	// authorization URL ([OAuth2AuthorizeRequest], [AuthorizeResponse]).
	// Served when an authentication has id [AuthOAuth2].
	PathOAuth2Auth = "/oauth2/v1/authorize"
	// PathOAuth2Token is POST /oauth2/v1/access_token: exchanges the
	// authorization code for the account data to store
	// ([OAuth2AccessTokenRequest]).
	PathOAuth2Token = "/oauth2/v1/access_token"
)

// Reserved authentication ids, values of [Authentication.ID]. Any other id is
// the app's own (token, basic, ...).
const (
	// AuthNone is an authentication that needs no account; it has no fields.
	AuthNone = "none"
	// AuthOAuth1 is OAuth 1: the app serves [PathOAuth1Auth] and
	// [PathOAuth1Token]. At most one per app.
	AuthOAuth1 = "oauth"
	// AuthOAuth2 is OAuth 2 with the authorization-code grant: the app serves
	// [PathOAuth2Auth] and [PathOAuth2Token]. At most one per app.
	AuthOAuth2 = "oauth2"
)

// SyncAction is the reserved item key of delta synchronization: every item of
// a [SyncDelta] page, and of a webhook transform answer, carries it with
// [ActionSet] or [ActionRemove]. Types that send removals declare it as a text
// field in their schema; it is never shown to users nor stored as data.
const SyncAction = "__syncAction"

// Values of [SyncAction].
const (
	// ActionSet creates the item or updates it; the item may be partial (its
	// id plus the changed fields).
	ActionSet = "SET"
	// ActionRemove deletes the entity with the item's id; the item's other
	// keys are ignored.
	ActionRemove = "REMOVE"
)

// Values of DataResponse.SynchronizationType.
const (
	// SyncFull means the run delivers every item of the type: whatever it
	// does not deliver is removed at the end of a successful run.
	SyncFull = "full"
	// SyncDelta means the run delivers changes only, every item carrying
	// [SyncAction].
	SyncDelta = "delta"
)

// Descriptor is the answer of GET /, sent by every app. Every key is sent,
// even when empty.
type Descriptor struct {
	// ID is the app's identity; the host names the app's namespace after it
	// (else after Name). conform warns when it is missing.
	ID string `json:"id"`
	// Type is a kind label; "custom" is a fine value. conform warns when it
	// is missing.
	Type string `json:"type"`
	// Name is the app's display name; required.
	Name string `json:"name"`
	// Version is the app's own version (the protocol's is in the paths).
	Version string `json:"version"`
	// Description says what the app does.
	Description string `json:"description"`
	// Website is the app's home page.
	Website string `json:"website"`
	// Authentication lists the ways to set up an account: at least one, with
	// unique ids.
	Authentication []Authentication `json:"authentication"`
	// Sources is always an empty array.
	Sources []any `json:"sources"`
	// ResponsibleFor says what the app offers; it must match the endpoints
	// the app serves.
	ResponsibleFor ResponsibleFor `json:"responsibleFor"`
	// Actions lists the external actions offered to automations; an empty
	// array for a pure synchronization app.
	Actions []Action `json:"actions"`
}

// ResponsibleFor says what an app offers (in [Descriptor.ResponsibleFor]) or
// what accounts of one authentication may be used for (in
// [Authentication.ResponsibleFor]).
type ResponsibleFor struct {
	// DataSynchronization is true for data synchronization: the app serves
	// config, schema and data.
	DataSynchronization bool `json:"dataSynchronization"`
	// Automations is true for external actions run by automations.
	Automations bool `json:"automations"`
}

// Authentication is one way for a user to set up an account, sent by the app
// in [Descriptor.Authentication]. The service builds the account form from
// its fields.
type Authentication struct {
	// ID is [AuthNone], [AuthOAuth1], [AuthOAuth2] or an id of the app's own
	// (token, basic, ...); unique within the descriptor. The service sends it
	// back as [ValidateRequest.ID].
	ID string `json:"id"`
	// Name is the display name.
	Name string `json:"name"`
	// Description is help text; absent when empty.
	Description string `json:"description,omitempty"`
	// Fields are the form's inputs, whose values make up the account; absent
	// for [AuthNone].
	Fields []Field `json:"fields,omitempty"`
	// ResponsibleFor limits accounts of this kind to synchronization or to
	// automations; absent when they may be used for both.
	ResponsibleFor *ResponsibleFor `json:"responsibleFor,omitempty"`
}

// Field is an input of an authentication form, sent by the app in
// [Authentication.Fields]. Its value is stored in the account under its ID.
type Field struct {
	// ID is the key of the value in the account.
	ID string `json:"id"`
	// Name is the input's label (some apps send "title" instead).
	Name string `json:"name"`
	// Type is the input type: text, number, bool, password (masked, and
	// treated as secret), link, highlightText, datebox or oauth.
	Type string `json:"type"`
	// Description is help text shown under the input; always sent.
	Description string `json:"description"`
	// Optional is true when the user may leave the input empty; absent when
	// false.
	Optional bool `json:"optional,omitempty"`
	// Value is the default value; for a link field, the URL shown (a link
	// holds no value of its own). Absent when empty.
	Value string `json:"value,omitempty"`
	// EditorMode is json or sql, for a highlightText field only; absent
	// otherwise.
	EditorMode string `json:"editorMode,omitempty"`
}

// Action is an external action offered to automations, sent by the app in
// [Descriptor.Actions] and run through [PathActionExecute].
type Action struct {
	// Action is the action's id; the service sends it back as
	// [ActionCall.Action].
	Action string `json:"action"`
	// Name is the display name.
	Name string `json:"name"`
	// Description is help text; absent when empty.
	Description string `json:"description,omitempty"`
	// Args lists the arguments an automation fills in. The protocol cannot
	// mark one optional: the action itself checks that what it needs is
	// there.
	Args []ActionArg `json:"args"`
}

// ActionArg is an argument of an Action.
type ActionArg struct {
	// ID is the key of the argument's value in [ActionCall.Args].
	ID string `json:"id"`
	// Name is the label.
	Name string `json:"name"`
	// Description is help text; absent when empty.
	Description string `json:"description,omitempty"`
	// Type is the input: text or textArea.
	Type string `json:"type"`
	// TextTemplateSupported is true when the value may use the automation's
	// text templates; absent when false.
	TextTemplateSupported bool `json:"textTemplateSupported,omitempty"`
}

// Filter is a synchronization filter shown to the user, sent by the app in
// [ConfigResponse.Filters]. The user's value comes back under ID in the
// filter of the schema, data, filter/validate and webhook requests ([Values]).
type Filter struct {
	// ID is the key of the filter's value in [Values].
	ID string `json:"id"`
	// Title is the label.
	Title string `json:"title"`
	// Type is the input type, which fixes the value's wire shape: text and
	// highlightText (string), number, bool, datebox (a day string), date
	// ({_min, _max}, an open side left out), list (one option's value) or
	// multidropdown (an array of option values).
	Type string `json:"type"`
	// Datalist is true when the options come from [PathDatalist] (list and
	// multidropdown filters only); absent when false.
	Datalist bool `json:"datalist,omitempty"`
	// DatalistRequires names other filters whose values the datalist needs;
	// they are sent as [DatalistRequest.DependsOn]. Absent when none.
	DatalistRequires []string `json:"datalist_requires,omitempty"`
	// Optional is true when the filter may be left empty; absent when false.
	Optional bool `json:"optional,omitempty"`
	// Secured is true when only the owner may change the value; absent when
	// false.
	Secured bool `json:"secured,omitempty"`
	// EditorMode is json or sql, for a highlightText filter only; absent
	// otherwise.
	EditorMode string `json:"editorMode,omitempty"`
	// DefaultValue is a default in the filter's wire shape (a project
	// choice, not fixed by the service); absent when there is none.
	DefaultValue any `json:"defaultValue,omitempty"`
}

// TypeDescriptor names a synchronizable type in the config answer.
type TypeDescriptor struct {
	// ID is the type's id: the key in [Schema] and the value of
	// [DataRequest.RequestedType].
	ID string `json:"id"`
	// Name is the display name.
	Name string `json:"name"`
	// Default is true when the type is pre-selected (a project choice): the
	// host synchronizes the default types when none are given, all types
	// when none is marked. Absent when false.
	Default bool `json:"default,omitempty"`
}

// WebhooksConfig announces webhook support in [ConfigResponse.Webhooks].
type WebhooksConfig struct {
	// Enabled is true when the app serves [PathWebhooks],
	// [PathWebhookVerify] and [PathWebhookXform].
	Enabled bool `json:"enabled"`
}

// ConfigRequest is the body of POST config, sent by the service.
type ConfigRequest struct {
	// Account is the account the config is asked for; every key is
	// optional, and it may be empty.
	Account Object `json:"account"`
}

// ConfigResponse is the answer of POST config.
type ConfigResponse struct {
	// Types lists the types the app can synchronize.
	Types []TypeDescriptor `json:"types"`
	// Filters lists the filters offered to the user; without it nothing can
	// be filtered (appkit always sends an array, [] when there are none).
	Filters []Filter `json:"filters"`
	// Webhooks announces webhook support; absent when the app has none.
	Webhooks *WebhooksConfig `json:"webhooks,omitempty"`
}

// SchemaRequest is the body of POST schema, sent by the service.
type SchemaRequest struct {
	// Types are the ids of the types whose fields are asked; at least one.
	Types []string `json:"types" validate:"required,min=1,dive,required"`
	// Filter holds the user's filter values by filter id; the schema may
	// depend on them. Empty when nothing is filled.
	Filter Values `json:"filter"`
	// Account is the account; the schema may depend on it.
	Account Object `json:"account"`
}

// Schema is the answer of POST schema: it maps each requested type id to its
// fields, keyed by field id. Every type has a field "id" of type id (the
// item's identity) and a field "name" (the entity's title). The service sends
// it back as [DataRequest.Schema].
type Schema map[string]map[string]SchemaField

// SchemaField describes one field of a type, sent by the app in a [Schema].
type SchemaField struct {
	// ID is the field's id: its key in the [Schema] and in items.
	ID string `json:"id"`
	// Name is the display name; required.
	Name string `json:"name"`
	// Description is help text; absent when empty.
	Description string `json:"description,omitempty"`
	// Type is id, text, number, date or array[text].
	Type string `json:"type"`
	// SubType refines Type (url, email, boolean, md, html, date-range,
	// date-time-range, single-select, workflow, multi-select, file, files,
	// integer, day); absent for the plain type.
	SubType string `json:"subType,omitempty"`
	// Relation makes the field a relation to another type; absent for a
	// plain field. A relation is declared once, on one side.
	Relation *Relation `json:"relation,omitempty"`
	// Readonly is true when users cannot change the field's name and type;
	// absent when false.
	Readonly bool `json:"readonly,omitempty"`
	// Ignore is true when the field is hidden from the fields catalog;
	// absent when false.
	Ignore bool `json:"ignore,omitempty"`
	// Order is the display order; absent when 0.
	Order int `json:"order,omitempty"`
	// Format is the display format of a number field; absent for the
	// default.
	Format *NumberFormat `json:"format,omitempty"`
	// Options lists the options of a single-select, multi-select or workflow
	// field (a project choice); absent when they are inferred from the data.
	Options []string `json:"options,omitempty"`
}

// NumberFormat is the display format of a number field, sent as
// [SchemaField.Format]: {"type": "Money", "precision": 2, "unit": "EUR"}.
type NumberFormat struct {
	// Type is Money, Percent or Number.
	Type string `json:"type"`
	// Precision is the number of decimals shown; absent for the default.
	Precision *int `json:"precision,omitempty"`
	// Unit is shown after the number (a currency, "h", ...); absent when
	// there is none.
	Unit string `json:"unit,omitempty"`
}

// Relation links a field to another type, sent as [SchemaField.Relation].
type Relation struct {
	// Cardinality is many-to-one (the field holds one id) or many-to-many
	// (an array of ids).
	Cardinality string `json:"cardinality"`
	// Name is the relation's field name on this side.
	Name string `json:"name"`
	// TargetType is the id of the related type, a type of the same app.
	TargetType string `json:"targetType"`
	// TargetName is the relation's field name on the other side.
	TargetName string `json:"targetName"`
	// TargetFieldID is the target type's field matched against this field's
	// values; usually "id".
	TargetFieldID string `json:"targetFieldId"`
}

// DataRequest is the body of POST data, sent by the service to load one page
// of one type.
type DataRequest struct {
	// RequestedType is the id of the type to load now; required.
	RequestedType string `json:"requestedType" validate:"required"`
	// Types are the ids of all types selected for the run.
	Types []string `json:"types"`
	// Filter holds the user's filter values by filter id; a key that is
	// absent or null has no value.
	Filter Values `json:"filter"`
	// Account is the account the run uses.
	Account Object `json:"account"`
	// Pagination is null or absent on the first page; afterwards it is the
	// previous page's [Pagination.NextPageConfig], unchanged.
	Pagination json.RawMessage `json:"pagination"`
	// LastSynchronizedAt is when the last successful run happened (ISO
	// 8601), or null for a first run, when an app commonly answers
	// [SyncFull]. The host sends the start of that run in UTC with
	// milliseconds, and only while the selected types and filter are those
	// of that run.
	LastSynchronizedAt *string `json:"lastSynchronizedAt"`
	// OperationID is one id per run, shared by every type and page of it; a
	// resumed run keeps it. It may arrive as a number.
	OperationID LooseString `json:"operationId,omitempty"`
	// Version is passed by the service and handed to the app's handler; it
	// may arrive as a number. The host does not send it.
	Version LooseString `json:"version,omitempty"`
	// Schema is the current [Schema] of the selected types; absent when not
	// sent.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// DataResponse is the answer of POST data.
type DataResponse struct {
	// Items are the page's items, objects keyed by the schema's field ids
	// with a non-empty "id"; an array, possibly empty. In a [SyncDelta] page
	// each carries [SyncAction].
	Items []any `json:"items"`
	// Pagination says whether more pages follow. An app without paging may
	// leave it out: the page is then the last one.
	Pagination *Pagination `json:"pagination,omitempty"`
	// SynchronizationType is [SyncFull] or [SyncDelta]; an app without
	// paging may leave it out, which means full.
	SynchronizationType string `json:"synchronizationType"`
}

// Pagination says whether more pages follow and how to ask for the next one.
type Pagination struct {
	// HasNext is true when more pages follow. An empty page with HasNext
	// true is valid: the service keeps going until it is false.
	HasNext bool `json:"hasNext"`
	// NextPageConfig is an object of the app's choosing (a cursor, cached
	// state), sent back unchanged as the next [DataRequest.Pagination]; it
	// must differ from page to page. It may be absent on the last page.
	NextPageConfig json.RawMessage `json:"nextPageConfig,omitempty"`
}

// DatalistRequest is the body of POST datalist, sent by the service for the
// options of one filter.
type DatalistRequest struct {
	// Types are the ids of the selected types.
	Types []string `json:"types"`
	// Account is the account the options are asked for.
	Account Object `json:"account"`
	// Field is the id of the filter whose options are asked, a filter
	// declared with [Filter.Datalist]; required.
	Field string `json:"field" validate:"required"`
	// DependsOn holds the values of the filters named in the filter's
	// [Filter.DatalistRequires], by filter id and in their wire shapes;
	// empty when there are none.
	DependsOn Values `json:"dependsOn"`
}

// DatalistItem is one option of a datalist.
type DatalistItem struct {
	// Title is what the user sees.
	Title string `json:"title"`
	// Value is what is stored and sent back in the filter's value.
	Value any `json:"value"`
}

// DatalistResponse is the answer of POST datalist.
type DatalistResponse struct {
	// Items are the filter's options.
	Items []DatalistItem `json:"items"`
}

// FilterValidateRequest is the body of POST filter/validate, sent by the
// service with the filter the user filled in.
type FilterValidateRequest struct {
	// Types are the ids of the selected types.
	Types []string `json:"types"`
	// Filter holds the values to check, by filter id.
	Filter Values `json:"filter"`
	// Account is the account the filter will be used with.
	Account Object `json:"account"`
}

// WebhookRequest is the body of POST and DELETE webhooks, sent by the service
// to install a webhook and to remove it.
type WebhookRequest struct {
	// Types are the ids of the selected types.
	Types []string `json:"types"`
	// Filter holds the user's filter values, by filter id.
	Filter Values `json:"filter"`
	// Account is the account the webhook is installed for.
	Account Object `json:"account"`
	// URL is where the external system should send events (a project
	// choice); sent on install, absent on delete.
	URL string `json:"url,omitempty"`
	// Webhook is null on the first install; afterwards it is the object a
	// previous install returned, sent back on every later install (to update
	// or reinstall) and on delete.
	Webhook *Webhook `json:"webhook"`
}

// Webhook is the app-defined webhook object: the answer of install, which the
// service stores and sends back as [WebhookRequest.Webhook].
type Webhook struct {
	// ID identifies the webhook; required. Verify answers it to route an
	// event to this webhook.
	ID string `json:"id" validate:"required"`
	// Events names the event kinds subscribed; the service gives it no
	// further meaning. Absent when empty.
	Events []string `json:"events,omitempty"`
	// Data holds whatever else the app needs to find the webhook again;
	// absent when there is nothing.
	Data json.RawMessage `json:"data,omitempty"`
}

// WebhookVerifyRequest is the body of POST webhooks/verify, sent by the
// service for each incoming event before it is transformed.
type WebhookVerifyRequest struct {
	// Params are the event's request headers.
	Params Object `json:"params"`
	// Payload is the event's body as received; it may be a JSON string
	// holding the body's text.
	Payload json.RawMessage `json:"payload"`
}

// WebhookVerifyResponse is the answer of POST webhooks/verify; a failed
// check answers an error status with an [ErrorBody] instead.
type WebhookVerifyResponse struct {
	// ID is the id of the stored webhook the event belongs to.
	ID string `json:"id"`
}

// WebhookTransformRequest is the body of POST webhooks/transform, sent by the
// service for a verified event.
type WebhookTransformRequest struct {
	// Params are the event's request headers.
	Params Object `json:"params"`
	// Payload is the event's body as received; it may be a JSON string
	// holding the body's text.
	Payload json.RawMessage `json:"payload"`
	// Types are the ids of the types the webhook's synchronization selects.
	Types []string `json:"types"`
	// Filter holds that synchronization's filter values, by filter id.
	Filter Values `json:"filter"`
	// Account is the account of that synchronization.
	Account Object `json:"account"`
}

// WebhookTransformResponse is the answer of POST webhooks/transform.
type WebhookTransformResponse struct {
	// Data maps type ids to items, each carrying [SyncAction]; they are
	// applied with the delta rules.
	Data map[string][]any `json:"data"`
}

// ResourceRequest is the body of POST resource, sent by the service to fetch
// a file whose URL in an item has the form app://resource?... (a file only
// the app can fetch, because it needs the account). The answer is the file
// itself, not JSON.
type ResourceRequest struct {
	// Types are the ids of the selected types.
	Types []string `json:"types"`
	// Account is the account that may fetch the file.
	Account Object `json:"account"`
	// Filter holds the user's filter values, by filter id.
	Filter Values `json:"filter"`
	// Params are the query parameters of the app://resource URL.
	Params Object `json:"params"`
}

// ActionExecuteRequest is the body of POST action/execute, sent by the
// service when an automation runs an action. Success is any 2xx with an
// empty object.
type ActionExecuteRequest struct {
	// Action names the action and holds its arguments; required.
	Action ActionCall `json:"action" validate:"required"`
	// Account is the account the action runs with.
	Account Object `json:"account"`
}

// ActionCall names the action to run and its arguments.
type ActionCall struct {
	// Action is the action's id, an [Action.Action] of the descriptor;
	// required.
	Action string `json:"action" validate:"required"`
	// Args holds the argument values by [ActionArg.ID]. An argument may be
	// missing (none is optional on the wire, so the action checks), and one
	// saved by an older version of the app may no longer be declared.
	Args Object `json:"args"`
}

// ValidateRequest is the body of POST /validate, sent by the service when an
// account is created and again before it is used; OAuth tokens are refreshed
// through it.
type ValidateRequest struct {
	// ID is the id of the authentication the user picked
	// ([Authentication.ID]); required.
	ID string `json:"id" validate:"required"`
	// Fields is the account: the form's values by field id, the keys the
	// service adds, and those that earlier validations and access_token
	// answers returned (stored tokens and their expiry).
	Fields Object `json:"fields"`
}

// ErrorBody is the body of every failure, sent by the app with an error
// status.
type ErrorBody struct {
	// Message says what failed, written for the user who reads it in the
	// workspace.
	Message string `json:"message"`
	// TryLater is true when the failure may pass later (an upstream's rate
	// limit, an outage): the service retries the same request later. Absent
	// when false.
	TryLater bool `json:"tryLater,omitempty"`
}

// OAuth2AuthorizeRequest is the body of POST /oauth2/v1/authorize, sent by the
// service when a user connects an OAuth 2 account.
type OAuth2AuthorizeRequest struct {
	// CallbackURI is the service's OAuth callback address, where the
	// provider sends the user back; required, a URL.
	CallbackURI string `json:"callback_uri" validate:"required,url"`
	// State is the service's state, which the provider's URL must carry
	// unchanged.
	State string `json:"state"`
}

// AuthorizeResponse is the answer of both authorize endpoints (OAuth 2 uses
// RedirectURI only).
type AuthorizeResponse struct {
	// RedirectURI is the provider's URL the user is sent to; for OAuth 2 it
	// carries the request's State.
	RedirectURI string `json:"redirect_uri"`
	// Token is the OAuth 1 request token, which the service sends back as
	// access_token with the verifier; absent for OAuth 2.
	Token string `json:"token,omitempty"`
	// Secret is the OAuth 1 request token's secret, which the service sends
	// back as access_secret; absent for OAuth 2.
	Secret string `json:"secret,omitempty"`
}

// OAuth2AccessTokenRequest is the body of POST /oauth2/v1/access_token, sent
// by the service after the provider's redirect. The answer is the account
// data to store: access_token, optionally refresh_token and an expiry, and
// anything else the app needs later.
type OAuth2AccessTokenRequest struct {
	// Fields holds the service's values for the exchange.
	Fields struct {
		// CallbackURI is the callback address given to authorize.
		CallbackURI string `json:"callback_uri"`
	} `json:"fields"`
	// Code is the authorization code of the provider's redirect; required.
	Code string `json:"code" validate:"required"`
}

// OAuth1AuthorizeRequest is the body of POST /oauth1/v1/authorize, sent by the
// service when a user connects an OAuth 1 account.
type OAuth1AuthorizeRequest struct {
	// CallbackURI is the service's OAuth callback address, with the
	// service's state as a query parameter that passes through untouched;
	// required, a URL.
	CallbackURI string `json:"callback_uri" validate:"required,url"`
}

// OAuth1AccessTokenRequest is the body of POST /oauth1/v1/access_token, sent
// by the service after the provider's redirect. The answer is the account
// data to store, as for OAuth 2.
type OAuth1AccessTokenRequest struct {
	// Fields holds what authorize returned and the callback address.
	Fields struct {
		// AccessToken is the request token authorize returned as
		// [AuthorizeResponse.Token]; required.
		AccessToken string `json:"access_token" validate:"required"`
		// AccessSecret is its secret, returned as
		// [AuthorizeResponse.Secret]; required.
		AccessSecret string `json:"access_secret" validate:"required"`
		// CallbackURI is the callback address given to authorize.
		CallbackURI string `json:"callback_uri"`
	} `json:"fields"`
	// OAuthVerifier is the verifier of the provider's redirect; required.
	OAuthVerifier string `json:"oauth_verifier" validate:"required"`
}
