// Package protocol defines the wire format of the custom-app protocol: the
// bodies that the workspace service sends to an app and the answers it
// expects (spec 002, "Resources and their fields" and "Endpoints").
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

// Paths of the protocol's endpoints, relative to the app's base address.
const (
	PathDescriptor     = "/"
	PathValidate       = "/validate"
	PathLogo           = "/logo"
	PathConfig         = "/api/v1/synchronizer/config"
	PathSchema         = "/api/v1/synchronizer/schema"
	PathData           = "/api/v1/synchronizer/data"
	PathDatalist       = "/api/v1/synchronizer/datalist"
	PathFilterValidate = "/api/v1/synchronizer/filter/validate"
	PathResource       = "/api/v1/synchronizer/resource"
	PathWebhooks       = "/api/v1/synchronizer/webhooks"
	PathWebhookVerify  = "/api/v1/synchronizer/webhooks/verify"
	PathWebhookXform   = "/api/v1/synchronizer/webhooks/transform"
	PathActionExecute  = "/api/v1/automations/action/execute"
	PathOAuth1Auth     = "/oauth1/v1/authorize"
	PathOAuth1Token    = "/oauth1/v1/access_token"
	PathOAuth2Auth     = "/oauth2/v1/authorize"
	PathOAuth2Token    = "/oauth2/v1/access_token"
)

// Reserved authentication ids.
const (
	AuthNone   = "none"
	AuthOAuth1 = "oauth"
	AuthOAuth2 = "oauth2"
)

// SyncAction is the reserved item key of delta synchronization.
const SyncAction = "__syncAction"

// Values of [SyncAction].
const (
	ActionSet    = "SET"
	ActionRemove = "REMOVE"
)

// Values of DataResponse.SynchronizationType.
const (
	SyncFull  = "full"
	SyncDelta = "delta"
)

// Descriptor is the answer of GET /.
type Descriptor struct {
	ID             string           `json:"id"`
	Type           string           `json:"type"`
	Name           string           `json:"name"`
	Version        string           `json:"version"`
	Description    string           `json:"description"`
	Website        string           `json:"website"`
	Authentication []Authentication `json:"authentication"`
	Sources        []any            `json:"sources"`
	ResponsibleFor ResponsibleFor   `json:"responsibleFor"`
	Actions        []Action         `json:"actions"`
}

// ResponsibleFor says what an app (or an account) is used for.
type ResponsibleFor struct {
	DataSynchronization bool `json:"dataSynchronization"`
	Automations         bool `json:"automations"`
}

// Authentication is one way to set up an account.
type Authentication struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	Description    string          `json:"description,omitempty"`
	Fields         []Field         `json:"fields,omitempty"`
	ResponsibleFor *ResponsibleFor `json:"responsibleFor,omitempty"`
}

// Field is a field of an authentication form.
type Field struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Optional    bool   `json:"optional,omitempty"`
	Value       string `json:"value,omitempty"`
	EditorMode  string `json:"editorMode,omitempty"`
}

// Action is an external action offered to automations.
type Action struct {
	Action      string      `json:"action"`
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Args        []ActionArg `json:"args"`
}

// ActionArg is an argument of an Action.
type ActionArg struct {
	ID                    string `json:"id"`
	Name                  string `json:"name"`
	Description           string `json:"description,omitempty"`
	Type                  string `json:"type"`
	TextTemplateSupported bool   `json:"textTemplateSupported,omitempty"`
}

// Filter is a synchronization filter shown to the user.
type Filter struct {
	ID               string   `json:"id"`
	Title            string   `json:"title"`
	Type             string   `json:"type"`
	Datalist         bool     `json:"datalist,omitempty"`
	DatalistRequires []string `json:"datalist_requires,omitempty"`
	Optional         bool     `json:"optional,omitempty"`
	Secured          bool     `json:"secured,omitempty"`
	EditorMode       string   `json:"editorMode,omitempty"`
	DefaultValue     any      `json:"defaultValue,omitempty"`
}

// TypeDescriptor names a synchronizable type in the config answer.
type TypeDescriptor struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Default bool   `json:"default,omitempty"`
}

// WebhooksConfig announces webhook support.
type WebhooksConfig struct {
	Enabled bool `json:"enabled"`
}

// ConfigRequest is the body of POST config.
type ConfigRequest struct {
	Account Object `json:"account"`
}

// ConfigResponse is the answer of POST config.
type ConfigResponse struct {
	Types    []TypeDescriptor `json:"types"`
	Filters  []Filter         `json:"filters"`
	Webhooks *WebhooksConfig  `json:"webhooks,omitempty"`
}

// SchemaRequest is the body of POST schema.
type SchemaRequest struct {
	Types   []string `json:"types" validate:"required,min=1,dive,required"`
	Filter  Values   `json:"filter"`
	Account Object   `json:"account"`
}

// Schema maps a type id to its fields by field id.
type Schema map[string]map[string]SchemaField

// SchemaField describes one field of a type.
type SchemaField struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Type        string        `json:"type"`
	SubType     string        `json:"subType,omitempty"`
	Relation    *Relation     `json:"relation,omitempty"`
	Readonly    bool          `json:"readonly,omitempty"`
	Ignore      bool          `json:"ignore,omitempty"`
	Order       int           `json:"order,omitempty"`
	Format      *NumberFormat `json:"format,omitempty"`
	Options     []string      `json:"options,omitempty"`
}

// NumberFormat is the display format of a number field (NOTES.md).
type NumberFormat struct {
	Type      string `json:"type"`
	Precision *int   `json:"precision,omitempty"`
	Unit      string `json:"unit,omitempty"`
}

// Relation links a field to another type.
type Relation struct {
	Cardinality   string `json:"cardinality"`
	Name          string `json:"name"`
	TargetType    string `json:"targetType"`
	TargetName    string `json:"targetName"`
	TargetFieldID string `json:"targetFieldId"`
}

// DataRequest is the body of POST data.
type DataRequest struct {
	RequestedType      string          `json:"requestedType" validate:"required"`
	Types              []string        `json:"types"`
	Filter             Values          `json:"filter"`
	Account            Object          `json:"account"`
	Pagination         json.RawMessage `json:"pagination"`
	LastSynchronizedAt *string         `json:"lastSynchronizedAt"`
	OperationID        LooseString     `json:"operationId,omitempty"`
	Version            LooseString     `json:"version,omitempty"`
	Schema             json.RawMessage `json:"schema,omitempty"`
}

// DataResponse is the answer of POST data.
type DataResponse struct {
	Items               []any       `json:"items"`
	Pagination          *Pagination `json:"pagination,omitempty"`
	SynchronizationType string      `json:"synchronizationType"`
}

// Pagination says whether more pages follow and how to ask for the next one.
type Pagination struct {
	HasNext        bool            `json:"hasNext"`
	NextPageConfig json.RawMessage `json:"nextPageConfig,omitempty"`
}

// DatalistRequest is the body of POST datalist.
type DatalistRequest struct {
	Types     []string `json:"types"`
	Account   Object   `json:"account"`
	Field     string   `json:"field" validate:"required"`
	DependsOn Values   `json:"dependsOn"`
}

// DatalistItem is one option of a datalist.
type DatalistItem struct {
	Title string `json:"title"`
	Value any    `json:"value"`
}

// DatalistResponse is the answer of POST datalist.
type DatalistResponse struct {
	Items []DatalistItem `json:"items"`
}

// FilterValidateRequest is the body of POST filter/validate.
type FilterValidateRequest struct {
	Types   []string `json:"types"`
	Filter  Values   `json:"filter"`
	Account Object   `json:"account"`
}

// WebhookRequest is the body of POST and DELETE webhooks.
type WebhookRequest struct {
	Types   []string `json:"types"`
	Filter  Values   `json:"filter"`
	Account Object   `json:"account"`
	URL     string   `json:"url,omitempty"`
	Webhook *Webhook `json:"webhook"`
}

// Webhook is the app-defined webhook object that the service stores and
// sends back. ID is required; Data holds whatever else the app needs.
type Webhook struct {
	ID     string          `json:"id" validate:"required"`
	Events []string        `json:"events,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// WebhookVerifyRequest is the body of POST webhooks/verify.
type WebhookVerifyRequest struct {
	Params  Object          `json:"params"`
	Payload json.RawMessage `json:"payload"`
}

// WebhookVerifyResponse is the answer of POST webhooks/verify.
type WebhookVerifyResponse struct {
	ID string `json:"id"`
}

// WebhookTransformRequest is the body of POST webhooks/transform.
type WebhookTransformRequest struct {
	Params  Object          `json:"params"`
	Payload json.RawMessage `json:"payload"`
	Types   []string        `json:"types"`
	Filter  Values          `json:"filter"`
	Account Object          `json:"account"`
}

// WebhookTransformResponse is the answer of POST webhooks/transform.
type WebhookTransformResponse struct {
	Data map[string][]any `json:"data"`
}

// ResourceRequest is the body of POST resource (NOTES.md).
type ResourceRequest struct {
	Types   []string `json:"types"`
	Account Object   `json:"account"`
	Filter  Values   `json:"filter"`
	Params  Object   `json:"params"`
}

// ActionExecuteRequest is the body of POST action/execute.
type ActionExecuteRequest struct {
	Action  ActionCall `json:"action" validate:"required"`
	Account Object     `json:"account"`
}

// ActionCall names the action to run and its arguments.
type ActionCall struct {
	Action string `json:"action" validate:"required"`
	Args   Object `json:"args"`
}

// ValidateRequest is the body of POST /validate.
type ValidateRequest struct {
	ID     string `json:"id" validate:"required"`
	Fields Object `json:"fields"`
}

// ErrorBody is the body of every failure.
type ErrorBody struct {
	Message  string `json:"message"`
	TryLater bool   `json:"tryLater,omitempty"`
}

// OAuth2AuthorizeRequest is the body of POST /oauth2/v1/authorize.
type OAuth2AuthorizeRequest struct {
	CallbackURI string `json:"callback_uri" validate:"required,url"`
	State       string `json:"state"`
}

// AuthorizeResponse is the answer of both authorize endpoints (OAuth 2 uses
// RedirectURI only).
type AuthorizeResponse struct {
	RedirectURI string `json:"redirect_uri"`
	Token       string `json:"token,omitempty"`
	Secret      string `json:"secret,omitempty"`
}

// OAuth2AccessTokenRequest is the body of POST /oauth2/v1/access_token.
type OAuth2AccessTokenRequest struct {
	Fields struct {
		CallbackURI string `json:"callback_uri"`
	} `json:"fields"`
	Code string `json:"code" validate:"required"`
}

// OAuth1AuthorizeRequest is the body of POST /oauth1/v1/authorize.
type OAuth1AuthorizeRequest struct {
	CallbackURI string `json:"callback_uri" validate:"required,url"`
}

// OAuth1AccessTokenRequest is the body of POST /oauth1/v1/access_token.
type OAuth1AccessTokenRequest struct {
	Fields struct {
		AccessToken  string `json:"access_token" validate:"required"`
		AccessSecret string `json:"access_secret" validate:"required"`
		CallbackURI  string `json:"callback_uri"`
	} `json:"fields"`
	OAuthVerifier string `json:"oauth_verifier" validate:"required"`
}
