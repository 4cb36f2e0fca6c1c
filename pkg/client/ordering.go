package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OrderingService is the ordering API (docs/api/ordering.md): messenger
// login, users and bans, the menu, the settings and orders. Its errors are *Error values in the
// {"success": false, "error", "code"} envelope.
type OrderingService struct {
	// Auth is the messenger login.
	Auth *OrderingAuthService
	// Bans are the login bans (OWNER).
	Bans *OrderingBansService
	// Users are the shop's users and their roles (OWNER).
	Users *OrderingUsersService
	// Admin is the portal operator's administration of the shop (the exam
	// API's operator token, WithToken): users, roles and bans.
	Admin *OrderingAdminService
	// Menu is the catalogue.
	Menu *OrderingMenuService
	// Settings are the shop's settings (ADMIN, OWNER).
	Settings *OrderingSettingsService
	// Orders places and follows orders.
	Orders *OrdersService
	// Payments are the receipts and the provider's notifications.
	Payments *PaymentsService
	// Kitchen is the kitchen display and the point of sale.
	Kitchen *KitchenService
	// Ledger is the owner's ledger.
	Ledger *LedgerService
	// Gateway is the shop's outbound messages and consents.
	Gateway *GatewayService
}

// OrderingAuthService is the messenger login of the ordering API.
type OrderingAuthService service

// OrderingBansService lists and lifts login bans (OWNER).
type OrderingBansService service

// OrderingUsersService lists users and sets their roles (OWNER).
type OrderingUsersService service

// OrderingAdminService is the operator's administration of the shop.
type OrderingAdminService service

func newOrderingService(common *service) *OrderingService {
	return &OrderingService{
		Auth:     (*OrderingAuthService)(common),
		Bans:     (*OrderingBansService)(common),
		Users:    (*OrderingUsersService)(common),
		Admin:    (*OrderingAdminService)(common),
		Menu:     (*OrderingMenuService)(common),
		Settings: (*OrderingSettingsService)(common),
		Orders:   (*OrdersService)(common),
		Payments: (*PaymentsService)(common),
		Kitchen:  (*KitchenService)(common),
		Ledger:   (*LedgerService)(common),
		Gateway:  (*GatewayService)(common),
	}
}

// ordering calls an ordering endpoint at path (relative to /api/).
func (c *Client) ordering(ctx context.Context, method, path string, q url.Values, body, v any, cred credential) (*Response, error) {
	return c.call(ctx, method, "api/"+path, q, body, v, cred, decodeExamError)
}

// Challenge is a proof-of-work challenge of GET /api/auth/challenge
// (ALTCHA's shape). Solve it with SolveChallenge.
type Challenge struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
	MaxNumber int64  `json:"maxnumber"`
}

// Challenge fetches a new proof-of-work challenge. A portal that checks
// logins with Turnstile or hCaptcha answers 404 CHALLENGE_NOT_SELF_HOSTED.
func (s *OrderingAuthService) Challenge(ctx context.Context) (*Challenge, *Response, error) {
	out := new(Challenge)
	resp, err := s.client.ordering(ctx, http.MethodGet, "auth/challenge", nil, nil, out, credNone)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// SolveChallenge finds the number whose SHA-256 with the salt is the
// challenge and returns the challengeToken of a login: base64 of the JSON
// answer. It takes a few milliseconds at the portal's difficulty.
func SolveChallenge(c *Challenge) (string, error) {
	if c.Algorithm != "SHA-256" {
		return "", fmt.Errorf("client: challenge algorithm %q is not SHA-256", c.Algorithm)
	}
	for n := int64(0); n <= c.MaxNumber; n++ {
		h := sha256.Sum256([]byte(c.Salt + strconv.FormatInt(n, 10)))
		if hex.EncodeToString(h[:]) == c.Challenge {
			b, err := json.Marshal(map[string]any{"algorithm": c.Algorithm, "challenge": c.Challenge,
				"number": n, "salt": c.Salt, "signature": c.Signature})
			if err != nil {
				return "", fmt.Errorf("client: encode challenge answer: %w", err)
			}
			return base64.StdEncoding.EncodeToString(b), nil
		}
	}
	return "", errors.New("client: no number up to maxnumber solves the challenge")
}

// LoginStart is the answer of a login: the token to poll with, the magic
// link that opens the messenger with the verification message, and the
// seconds the token lives.
type LoginStart struct {
	Token     string `json:"token"`
	MagicLink string `json:"magicLink"`
	ExpiresIn int    `json:"expiresIn"`
}

// Login starts a messenger login of number (POST /api/auth/login) with a
// solved challenge token; with an empty challengeToken it fetches and solves
// the built-in challenge first. A banned number or address gives 429
// BAN_ACTIVE (with RetryAfter) or BAN_PERMANENT.
func (s *OrderingAuthService) Login(ctx context.Context, number, challengeToken string) (*LoginStart, *Response, error) {
	if challengeToken == "" {
		c, resp, err := s.Challenge(ctx)
		if err != nil {
			return nil, resp, err
		}
		if challengeToken, err = SolveChallenge(c); err != nil {
			return nil, resp, err
		}
	}
	body := struct {
		MessengerNumber string `json:"messengerNumber"`
		ChallengeToken  string `json:"challengeToken"`
	}{number, challengeToken}
	out := new(LoginStart)
	resp, err := s.client.ordering(ctx, http.MethodPost, "auth/login", nil, body, out, credNone)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// OrderingUser is a user of the ordering API.
type OrderingUser struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	MessengerNumber string   `json:"messengerNumber"`
	Role            string   `json:"role"`
	AllowedMenus    []string `json:"allowedMenus"`
}

// LoginStatus is the answer of a poll: Status PENDING (ExpiresIn seconds
// left), EXPIRED, or VERIFIED with the JWT in Token and the User, handed out
// once.
type LoginStatus struct {
	Status    string        `json:"status"`
	ExpiresIn int           `json:"expiresIn"`
	Token     string        `json:"token"`
	User      *OrderingUser `json:"user"`
}

// Poll reads the state of a login (GET /api/auth/poll-status). After the
// poll that hands out the JWT, the token answers 409 TOKEN_USED. An empty
// token is an error, without a request.
func (s *OrderingAuthService) Poll(ctx context.Context, token string) (*LoginStatus, *Response, error) {
	if token == "" {
		return nil, nil, errorf("login token must not be empty")
	}
	out := new(LoginStatus)
	resp, err := s.client.ordering(ctx, http.MethodGet, "auth/poll-status", url.Values{"token": {token}}, nil, out, credNone)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// ErrLoginExpired is returned by WaitVerified when the login token expired
// before its verification message arrived.
var ErrLoginExpired = errors.New("client: the login token expired before it was verified")

// WaitVerified polls the login of token every interval (2 s when 0) until
// it is verified, and returns the JWT and the user; it also sets the JWT on
// the Client (SetOrderingToken). It stops with ErrLoginExpired when the
// token expires and with the context's error at its deadline.
func (s *OrderingAuthService) WaitVerified(ctx context.Context, token string, interval time.Duration) (*LoginStatus, error) {
	if interval <= 0 {
		interval = 2 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		st, _, err := s.Poll(ctx, token)
		switch {
		case err != nil:
			return nil, err
		case st.Status == "VERIFIED":
			s.client.SetOrderingToken(st.Token)
			return st, nil
		case st.Status == "EXPIRED":
			return nil, ErrLoginExpired
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("client: waiting for the login to be verified: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// Me returns the user of the ordering JWT (GET /api/auth/me).
func (s *OrderingAuthService) Me(ctx context.Context) (*OrderingUser, *Response, error) {
	var out struct {
		User *OrderingUser `json:"user"`
	}
	resp, err := s.client.ordering(ctx, http.MethodGet, "auth/me", nil, nil, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.User, resp, nil
}

// Ban is a login-ban record of a number or an address.
type Ban struct {
	ID              string     `json:"id"`
	Kind            string     `json:"kind"` // number or address
	MessengerNumber string     `json:"messengerNumber,omitempty"`
	Address         string     `json:"address,omitempty"`
	Attempts        int        `json:"attempts"`
	BanLevel        int        `json:"banLevel"`
	BanUntil        *time.Time `json:"banUntil"`
	Review          bool       `json:"review"`
	LastAttemptAt   time.Time  `json:"lastAttemptAt"`
}

// List returns the ban records with a level or attempts, most recent first
// (GET /api/bans, OWNER).
func (s *OrderingBansService) List(ctx context.Context) ([]Ban, *Response, error) {
	var out struct {
		Bans []Ban `json:"bans"`
	}
	resp, err := s.client.ordering(ctx, http.MethodGet, "bans", nil, nil, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Bans, resp, nil
}

// Lift ends a ban, a permanent one included (POST /api/bans/{id}/lift, OWNER).
func (s *OrderingBansService) Lift(ctx context.Context, id string) (*Response, error) {
	return s.client.ordering(ctx, http.MethodPost, "bans/"+url.PathEscape(id)+"/lift", nil, nil, nil, credOrdering)
}

// SignGatewayWebhook sets the Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature) of a messaging-gateway call with
// body on h, signed with secret ("whsec_<base64>", or any other string
// used byte for byte), as the portal's POST /api/auth/gateway-webhook
// checks them. id must be unique per message and contain no ".".
func SignGatewayWebhook(h http.Header, secret, id string, ts time.Time, body []byte) error {
	if id == "" || strings.Contains(id, ".") {
		return fmt.Errorf("client: webhook id %q must be non-empty and without '.'", id)
	}
	key := []byte(secret)
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		k, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return fmt.Errorf("client: gateway secret: %w", err)
		}
		key = k
	}
	stamp := strconv.FormatInt(ts.Unix(), 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + stamp + "."))
	mac.Write(body)
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", stamp)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return nil
}

// SignProviderWebhook returns the x-provider-signature of a payment
// provider's notification with body: the hex HMAC-SHA256 of the raw body
// under secret.
func SignProviderWebhook(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// GatewayResult is the answer of the gateway webhook: VERIFIED,
// ALREADY_PROCESSED or RECORDED.
type GatewayResult struct {
	Status string `json:"status"`
}

// DeliverGatewayMessage posts an inbound message from number to the
// portal's gateway webhook, signed with secret, as a messaging gateway
// does (for tests and integrations).
func (s *OrderingAuthService) DeliverGatewayMessage(ctx context.Context, secret, id, from, text string) (*GatewayResult, *Response, error) {
	body, err := jsonBody(map[string]string{"from": from, "message": text})
	if err != nil {
		return nil, nil, err
	}
	req, err := s.client.newRequest(ctx, http.MethodPost, "api/auth/gateway-webhook", nil, json.RawMessage(body), credNone)
	if err != nil {
		return nil, nil, err
	}
	if err := SignGatewayWebhook(req.Header, secret, id, time.Now(), body); err != nil {
		return nil, nil, err
	}
	out := new(GatewayResult)
	resp, err := s.client.do(ctx, req, out, decodeExamError)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// RoleRequest is a role change: the role (CUSTOMER, STAFF, ADMIN or OWNER)
// and, for STAFF, the allowedMenus among kitchen, pos and payments (nil
// keeps them).
type RoleRequest struct {
	Role         string   `json:"role"`
	AllowedMenus []string `json:"allowedMenus,omitempty"`
}

// List returns every user, oldest first (GET /api/users, OWNER).
func (s *OrderingUsersService) List(ctx context.Context) ([]OrderingUser, *Response, error) {
	var out struct {
		Users []OrderingUser `json:"users"`
	}
	resp, err := s.client.ordering(ctx, http.MethodGet, "users", nil, nil, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Users, resp, nil
}

// SetRole sets a user's role (PUT /api/users/{id}/role, OWNER); an owner
// cannot change its own (403 CANNOT_CHANGE_OWN_ROLE).
func (s *OrderingUsersService) SetRole(ctx context.Context, id string, req *RoleRequest) (*OrderingUser, *Response, error) {
	var out struct {
		User *OrderingUser `json:"user"`
	}
	resp, err := s.client.ordering(ctx, http.MethodPut, "users/"+url.PathEscape(id)+"/role", nil, req, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.User, resp, nil
}

// ListUsers returns every user of the shop (GET
// /api/v1/admin/ordering/users, operator).
func (s *OrderingAdminService) ListUsers(ctx context.Context) ([]OrderingUser, *Response, error) {
	return examData[[]OrderingUser](ctx, s.client, http.MethodGet, "admin/ordering/users", nil, nil)
}

// SetRole sets any user's role (PUT /api/v1/admin/ordering/users/{id}/role,
// operator); the last OWNER keeps its role (409 LAST_OWNER).
func (s *OrderingAdminService) SetRole(ctx context.Context, id string, req *RoleRequest) (*OrderingUser, *Response, error) {
	return examData[*OrderingUser](ctx, s.client, http.MethodPut, "admin/ordering/users/"+url.PathEscape(id)+"/role", nil, req)
}

// ListBans returns the login-ban records (GET /api/v1/admin/ordering/bans,
// operator).
func (s *OrderingAdminService) ListBans(ctx context.Context) ([]Ban, *Response, error) {
	return examData[[]Ban](ctx, s.client, http.MethodGet, "admin/ordering/bans", nil, nil)
}

// LiftBan ends a ban (POST /api/v1/admin/ordering/bans/{id}/lift, operator).
func (s *OrderingAdminService) LiftBan(ctx context.Context, id string) (*Response, error) {
	return s.client.exam(ctx, http.MethodPost, "admin/ordering/bans/"+url.PathEscape(id)+"/lift", nil, nil, nil, credBearer)
}

// jsonBody encodes v as a request body that is signed as it is sent.
func jsonBody(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("client: encode request body: %w", err)
	}
	return b, nil
}

// MenuImport is the outcome of a menu import.
type MenuImport struct {
	CategoriesCreated int `json:"categoriesCreated"`
	ItemsCreated      int `json:"itemsCreated"`
	ItemsUpdated      int `json:"itemsUpdated"`
	Errors            []struct {
		Row     int    `json:"row"`
		Message string `json:"message"`
	} `json:"errors,omitempty"`
}

// ImportMenu imports a menu CSV (POST /api/v1/admin/ordering/menu/import,
// operator): category,name,description,price,available,image_url. A file
// with bad rows imports nothing: 422 IMPORT_REFUSED, and the report's rows
// are in the returned *MenuImport.
func (s *OrderingAdminService) ImportMenu(ctx context.Context, csv io.Reader) (*MenuImport, *Response, error) {
	ctx = creating(ctx)
	req, err := s.client.newRequest(ctx, http.MethodPost, "api/v1/admin/ordering/menu/import", nil, csv, credBearer)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "text/csv")
	var out, refused struct {
		Data *MenuImport `json:"data"`
	}
	// A refused file's answer carries the report of its bad rows.
	dec := func(e *Error, body []byte) bool {
		_ = json.Unmarshal(body, &refused)
		return decodeExamError(e, body)
	}
	resp, err := s.client.do(ctx, req, &out, dec)
	if err != nil {
		return refused.Data, resp, err
	}
	return out.Data, resp, nil
}

// Ledger returns the shop's ledger (GET /api/v1/admin/ordering/ledger, operator).
func (s *OrderingAdminService) Ledger(ctx context.Context, from, to string) (*Ledger, *Response, error) {
	return examData[*Ledger](ctx, s.client, http.MethodGet, "admin/ordering/ledger", url.Values{"from": {from}, "to": {to}}, nil)
}

// LedgerCSV writes the ledger's CSV to w (operator).
func (s *OrderingAdminService) LedgerCSV(ctx context.Context, from, to string, w io.Writer) (*Response, error) {
	return s.client.exam(ctx, http.MethodGet, "admin/ordering/ledger", url.Values{"from": {from}, "to": {to}, "format": {"csv"}}, nil, w, credBearer)
}
