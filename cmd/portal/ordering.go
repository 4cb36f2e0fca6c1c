package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/config"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/webhook"
)

// orderingOptions is the configuration of the ordering service
// (docs/configuration.md, "Ordering").
type orderingOptions struct {
	Region          string
	OwnerNumber     string
	MessengerLink   string
	GatewaySecrets  []string
	SandboxPublic   bool
	Challenge       string
	ChallengeSecret string
	ChallengeURL    string
	ProviderURL     string
	ProviderSecrets []string
	MerchantID      string
	ProofDir        string
	WAHAURL         string
	WAHAKey         string
	WAHASession     string
}

// addOrderingFlags declares the ordering flags of "portal serve".
func addOrderingFlags(f *pflag.FlagSet) {
	f.String("ordering-region", "ID", "ISO 3166-1 region of messenger numbers given without a country code")
	f.String("ordering-owner-number", "", "messenger number whose first login becomes the shop's OWNER")
	f.String("ordering-messenger-link", "", "magic-link base of the shop's messenger number, e.g. https://wa.me/6281100000000 (required with a gateway; default: the built-in sandbox page)")
	f.StringSlice("ordering-gateway-secret", nil, "Standard Webhooks secret(s) of the messaging gateway (whsec_...; several during a rotation); none: the built-in gateway stand-in")
	f.Bool("ordering-sandbox-public", false, "let clients from any address use the built-in gateway stand-in (only for a shared test portal: it logs in as any number)")
	f.String("ordering-challenge", "pow", "anti-bot check of logins: pow (built in), turnstile or hcaptcha")
	f.String("ordering-challenge-secret", "", "secret key of the turnstile or hcaptcha site")
	f.String("ordering-challenge-url", "", "siteverify URL (default: the service's own)")
	f.String("ordering-provider-url", "", "payment provider's invoice endpoint (docs/api/ordering.md); none: the built-in payment sandbox")
	f.StringSlice("ordering-provider-secret", nil, "secret(s) of the payment provider's signatures (several during a rotation); required with ordering-provider-url")
	f.String("ordering-provider-merchant-id", "", "the shop's merchant id at the payment provider (required with ordering-provider-url)")
	f.String("ordering-waha-url", "", "WAHA-compatible HTTP API that sends the shop's messages (none: the stand-in keeps them, readable at /api/gateway/messages)")
	f.String("ordering-waha-key", "", "X-Api-Key of the WAHA API")
	f.String("ordering-waha-session", "default", "WAHA session of the shop's number")
	f.String("ordering-proof-dir", "", "deprecated: the directory of payment receipts of earlier releases (default <data-dir>/payment-proofs), copied into the blob store at start-up and read until then")
}

// orderingOptionsFrom reads and validates the ordering configuration.
func orderingOptionsFrom(r *config.Reader) orderingOptions {
	o := orderingOptions{
		Region:          strings.ToUpper(r.String("ordering-region")),
		OwnerNumber:     r.String("ordering-owner-number"),
		GatewaySecrets:  r.StringSlice("ordering-gateway-secret"),
		SandboxPublic:   r.Bool("ordering-sandbox-public"),
		Challenge:       r.OneOf("ordering-challenge", "pow", "turnstile", "hcaptcha"),
		ChallengeSecret: r.Viper().GetString("ordering-challenge-secret"),
	}
	if u := r.URL("ordering-messenger-link", "http", "https"); u != nil {
		o.MessengerLink = u.String()
	}
	if u := r.URL("ordering-challenge-url", "https", "http"); u != nil {
		o.ChallengeURL = u.String()
	}
	if o.Region == "" {
		o.Region = "ID"
	}
	if o.OwnerNumber != "" {
		if _, err := ordering.NormalizeNumber(o.OwnerNumber, o.Region); err != nil {
			r.Fail("ordering-owner-number", "%q is not a valid phone number", o.OwnerNumber)
		}
	}
	if len(o.GatewaySecrets) > 0 {
		if _, err := webhook.NewVerifier(o.GatewaySecrets); err != nil {
			r.Fail("ordering-gateway-secret", "%v", err)
		}
		if o.MessengerLink == "" {
			r.Fail("ordering-messenger-link", "is required with a messaging gateway: the link that opens a chat with the shop's number (e.g. https://wa.me/6281100000000)")
		}
	}
	if u := r.URL("ordering-provider-url", "https", "http"); u != nil {
		o.ProviderURL = u.String()
	}
	o.ProviderSecrets = r.StringSlice("ordering-provider-secret")
	o.MerchantID = r.String("ordering-provider-merchant-id")
	o.ProofDir = r.String("ordering-proof-dir")
	if u := r.URL("ordering-waha-url", "https", "http"); u != nil {
		o.WAHAURL = u.String()
	}
	o.WAHAKey = r.Viper().GetString("ordering-waha-key")
	o.WAHASession = r.String("ordering-waha-session")
	if o.ProviderURL != "" && (len(o.ProviderSecrets) == 0 || o.MerchantID == "") {
		r.Fail("ordering-provider-url", "needs ordering-provider-secret and ordering-provider-merchant-id")
	}
	if o.ProviderURL == "" && len(o.ProviderSecrets) > 0 {
		r.Fail("ordering-provider-secret", "is set without ordering-provider-url")
	}
	if o.Challenge != "pow" && o.ChallengeSecret == "" {
		r.Fail("ordering-challenge-secret", "is required with ordering-challenge %s", o.Challenge)
	}
	return o
}

// Names of the ordering service's generated secrets in the store.
const (
	orderingJWTSecretName      = "ordering-jwt"
	orderingPoWSecretName      = "ordering-pow"
	orderingGatewaySecretName  = "ordering-gateway"
	orderingProviderSecretName = "ordering-provider"
)

// sandboxMerchantID is the merchant id of the built-in payment sandbox.
const sandboxMerchantID = "SANDBOX"

// secretStore keeps generated secrets (exam.Store has it).
type secretStore interface {
	GetOrCreateSecret(ctx context.Context, name string, value []byte) ([]byte, error)
}

// storedSecret returns the secret name, generated (32 random bytes) on first
// use and kept in the store, shared by every instance.
func storedSecret(ctx context.Context, st secretStore, name string) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("generate the %s secret: %w", name, err)
	}
	v, err := st.GetOrCreateSecret(ctx, name, fresh)
	if err != nil {
		return nil, fmt.Errorf("load the %s secret: %w", name, err)
	}
	return v, nil
}

// newOrdering builds the ordering service and its routes over st, with
// the payment receipts in blobs. baseURL is the portal's public base URL,
// for the built-in stand-ins' pages. The receipts of the legacy proof
// directory (ordering-proof-dir, else <data-dir>/payment-proofs) are
// copied into blobs (ordering.Service.MigrateProofDir).
func newOrdering(ctx context.Context, st store, blobs blobstore.Store, o orderingOptions, baseURL, dataDir string, logger *slog.Logger) (*ordhttp.Options, error) {
	jwtKey, err := storedSecret(ctx, st, orderingJWTSecretName)
	if err != nil {
		return nil, err
	}
	out := &ordhttp.Options{Logger: logger}
	var verifier ordering.Verifier
	switch o.Challenge {
	case "turnstile", "hcaptcha":
		u := o.ChallengeURL
		if u == "" {
			u = map[string]string{"turnstile": challenge.TurnstileVerifyURL, "hcaptcha": challenge.HCaptchaVerifyURL}[o.Challenge]
		}
		verifier = challenge.NewSiteVerify(u, o.ChallengeSecret, &http.Client{Timeout: challenge.DefaultSiteVerifyTimeout})
	default:
		powKey, err := storedSecret(ctx, st, orderingPoWSecretName)
		if err != nil {
			return nil, err
		}
		pow, err := challenge.NewPoW(powKey, challenge.WithSpentStore(st))
		if err != nil {
			return nil, fmt.Errorf("ordering: %w", err)
		}
		verifier, out.PoW = pow, pow
	}
	secrets, link := o.GatewaySecrets, o.MessengerLink
	if len(secrets) == 0 {
		gw, err := storedSecret(ctx, st, orderingGatewaySecretName)
		if err != nil {
			return nil, err
		}
		secret := "whsec_" + base64.StdEncoding.EncodeToString(gw)
		secrets = []string{secret}
		out.Sandbox = &ordhttp.Sandbox{GatewaySecret: secret, Public: o.SandboxPublic}
		if link == "" {
			link = strings.TrimSuffix(baseURL, "/") + "/sandbox/messenger"
		}
		logger.Warn("ordering: no messaging gateway is configured: the built-in stand-in delivers logins from "+link+
			" (it logs in as any number; configure ordering-gateway-secret and ordering-messenger-link for a real shop)",
			"public", o.SandboxPublic)
	}
	if out.Gateway, err = webhook.NewVerifier(secrets); err != nil {
		return nil, fmt.Errorf("ordering: gateway secret: %w", err)
	}
	var payments ordering.PaymentLinker
	merchant := o.MerchantID
	if o.ProviderURL != "" {
		out.ProviderSecrets = o.ProviderSecrets
		payments = ordering.HTTPPayments{URL: o.ProviderURL, Secret: o.ProviderSecrets[0], MerchantID: merchant,
			Client: &http.Client{Timeout: 10 * time.Second}}
	} else {
		ps, err := storedSecret(ctx, st, orderingProviderSecretName)
		if err != nil {
			return nil, err
		}
		secret := base64.StdEncoding.EncodeToString(ps)
		merchant = sandboxMerchantID
		out.ProviderSecrets = []string{secret}
		if out.Sandbox == nil {
			out.Sandbox = &ordhttp.Sandbox{Public: o.SandboxPublic}
		}
		out.Sandbox.ProviderSecret, out.Sandbox.MerchantID = secret, merchant
		payments = ordering.SandboxPayments{BaseURL: baseURL}
		logger.Warn("ordering: no payment provider is configured: orders are paid on the built-in sandbox page /sandbox/pay/{invoice} (no money moves; configure ordering-provider-url for a real shop)")
	}
	proofDir := o.ProofDir
	if proofDir == "" {
		proofDir = filepath.Join(dataDir, "payment-proofs")
	} else {
		logger.Warn("ordering-proof-dir is deprecated: payment receipts are kept in the blob store; the directory is only read, to copy its receipts there",
			"dir", proofDir)
	}
	if _, err := os.Stat(proofDir); err != nil {
		proofDir = "" // nothing to migrate
	}
	if out.Service, err = ordering.NewService(st, ordering.Config{
		JWTKey:            jwtKey,
		Region:            o.Region,
		MessengerLinkBase: link,
		OwnerNumber:       o.OwnerNumber,
		Challenge:         verifier,
		Payments:          payments,
		Blobs:             blobs,
		ProofDir:          proofDir,
		MerchantID:        merchant,
	}, logger); err != nil {
		return nil, err
	}
	if proofDir != "" {
		m, err := out.Service.MigrateProofDir(ctx)
		if err != nil {
			logger.Error("ordering: copying payment receipts into the blob store stopped; the others are read from the directory until the next start",
				"dir", proofDir, "copied", m.Copied, "err", err)
		} else {
			logger.Info("ordering: payment receipts of the proof directory are in the blob store", "dir", proofDir,
				"copied", m.Copied, "present", m.Present, "skipped", m.Skipped)
		}
	}
	return out, nil
}

// messenger returns the sender of the shop's outbound messages: the WAHA
// API when configured, else the stand-in, which keeps them in the queue.
func (o orderingOptions) messenger() ordering.Messenger {
	if o.WAHAURL == "" {
		return ordering.StandInMessenger{}
	}
	return ordering.WAHAMessenger{URL: o.WAHAURL, Key: o.WAHAKey, Session: o.WAHASession,
		Client: &http.Client{Timeout: 15 * time.Second}}
}
