package ordering

import (
	"bytes"
	"encoding/json"
	"html/template"

	"github.com/go-chi/chi/v5"

	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"

	ord "github.com/seedhq/portal/internal/ordering"

	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/webhook"
)

// Sandbox configures the built-in messaging gateway stand-in, on when no
// real gateway is configured: the magic link of a login opens its page at
// /sandbox/messenger, where the message is "sent" from a number of the
// user's choosing and delivered to the gateway webhook, signed, as a real
// gateway would. Whoever may use it can log in as any number, so it answers
// only clients on the portal's own machine (loopback addresses) unless
// Public is set.
type Sandbox struct {
	// GatewaySecret signs the delivered messages; Options.Gateway must
	// accept it. Empty: a real gateway is configured and the messenger
	// page is off.
	GatewaySecret string
	// ProviderSecret signs the payment page's notifications (one of
	// Options.ProviderSecrets) and MerchantID names the shop in them.
	// Empty: a real provider is configured and the payment page is off.
	ProviderSecret, MerchantID string
	// Public lets clients from any address use the stand-in.
	Public bool
}

var sandboxPage = template.Must(template.New("messenger").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Messenger sandbox</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}input,textarea{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;border:1px solid #666;border-radius:4px}
button{margin-top:1rem;font:inherit;padding:.6rem 1.2rem;background:#0b5cad;color:#fff;border:0;border-radius:4px}
button:focus,input:focus,textarea:focus{outline:3px solid #f5b400}.note{background:#fff4d6;padding:.75rem;border-radius:4px}
.ok{background:#e3f5e1;padding:.75rem;border-radius:4px}.err{background:#fde2e1;padding:.75rem;border-radius:4px}</style></head>
<body><main><h1>Messenger sandbox</h1>
<p class="note">This page stands in for the shop's messenger number while no messaging gateway is configured.
Sending the message below delivers it to the portal exactly as a gateway would: signed, from the number you give.</p>
{{if .Result}}<p class="{{if .OK}}ok{{else}}err{{end}}" role="status">{{.Result}}</p>{{end}}
<form method="post" action="/sandbox/messenger">
<label for="from">Your messenger number</label>
<input id="from" name="from" inputmode="tel" autocomplete="tel" required value="{{.From}}" placeholder="0812 3456 7890">
<label for="text">Message</label>
<textarea id="text" name="text" rows="3" required>{{.Text}}</textarea>
<button type="submit">Send</button>
</form></main></body></html>
`))

type sandboxView struct {
	From, Text, Result string
	OK                 bool
}

// sandboxAllowed reports whether the client may use the stand-in.
func (a *api) sandboxAllowed(r *http.Request) bool {
	if a.sandbox.Public {
		return true
	}
	ip, err := netip.ParseAddr(respond.ClientIP(r.Context()))
	return err == nil && ip.IsLoopback()
}

// sandboxForbidden refuses the stand-in to a remote client.
func (a *api) sandboxForbidden(w http.ResponseWriter, r *http.Request) {
	respond.ErrorStatus(w, http.StatusForbidden, "SANDBOX_LOCAL_ONLY",
		"the messenger sandbox answers only clients on the portal's machine; configure a messaging gateway (ordering-gateway-secret) or, for a shared test portal, ordering-sandbox-public")
}

// sandboxMessenger serves GET /sandbox/messenger?text=: the page with the
// message of a magic link ready to send.
func (a *api) sandboxMessenger(w http.ResponseWriter, r *http.Request) {
	if !a.sandboxAllowed(r) {
		a.sandboxForbidden(w, r)
		return
	}
	a.renderSandbox(w, http.StatusOK, sandboxView{Text: r.URL.Query().Get("text")})
}

// sandboxSend serves POST /sandbox/messenger (form fields from and text):
// the message is signed with the gateway secret and handled by the gateway
// webhook's own handler, and the page shows what it answered (a client that
// accepts application/json gets the webhook's JSON answer and status).
func (a *api) sandboxSend(w http.ResponseWriter, r *http.Request) {
	if !a.sandboxAllowed(r) {
		a.sandboxForbidden(w, r)
		return
	}
	from, text := strings.TrimSpace(r.PostFormValue("from")), r.PostFormValue("text")
	body, err := json.Marshal(gatewayMessage{From: from, Message: text})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	req := httptest.NewRequestWithContext(r.Context(), http.MethodPost, "/api/auth/gateway-webhook", bytes.NewReader(body))
	if err := webhook.SetHeaders(req.Header, a.sandbox.GatewaySecret, "sandbox_"+respond.RequestID(r.Context()), a.now(), body); err != nil {
		a.writeError(w, r, err)
		return
	}
	var res struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	rec, relayed := a.deliver(w, r, a.gatewayWebhook, req, &res)
	if relayed {
		return
	}
	v := sandboxView{From: from, Text: text, OK: rec.Code == http.StatusOK}
	switch {
	case rec.Code != http.StatusOK:
		v.Result = "Not delivered: " + res.Error
	case res.Status == "VERIFIED":
		v.Result = "Delivered: your login is verified. Go back to the app; it signs you in by itself."
	default:
		v.Result = "Delivered (" + res.Status + ")."
	}
	status := http.StatusOK
	if !v.OK {
		status = rec.Code
	}
	a.renderSandbox(w, status, v)
}

func (a *api) renderSandbox(w http.ResponseWriter, status int, v sandboxView) {
	a.renderPage(w, sandboxPage, status, v)
}

// renderPage writes a sandbox page.
func (a *api) renderPage(w http.ResponseWriter, page *template.Template, status int, v any) {
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		a.log.Error("ordering: sandbox page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

var payPage = template.Must(template.New("pay").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Payment sandbox</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
button{margin:1rem .5rem 0 0;font:inherit;padding:.6rem 1.2rem;border:0;border-radius:4px;color:#fff}
.pay{background:#0b6e2e}.fail{background:#a11}button:focus{outline:3px solid #f5b400}
.note{background:#fff4d6;padding:.75rem;border-radius:4px}.ok{background:#e3f5e1;padding:.75rem;border-radius:4px}
.err{background:#fde2e1;padding:.75rem;border-radius:4px}dt{font-weight:600}</style></head>
<body><main><h1>Payment sandbox</h1>
<p class="note">This page stands in for the payment provider while none is configured. Pay and Fail send the
provider's signed notification to the portal, as a provider's sandbox does. No money moves.</p>
{{if .Result}}<p class="{{if .OK}}ok{{else}}err{{end}}" role="status">{{.Result}}</p>{{end}}
<dl><dt>Order</dt><dd>{{.Number}}</dd><dt>Amount</dt><dd>Rp {{.Amount}}</dd><dt>Status</dt><dd>{{.Status}}</dd></dl>
<form method="post"><button class="pay" name="status" value="PAID">Pay</button>
<button class="fail" name="status" value="FAILED">Fail</button></form></main></body></html>
`))

type payView struct {
	Number, Status, Result string
	Amount                 int64
	OK                     bool
}

// sandboxPay serves GET /sandbox/pay/{invoice}: the invoice's order with
// Pay and Fail buttons.
func (a *api) sandboxPay(w http.ResponseWriter, r *http.Request) {
	if !a.sandboxAllowed(r) {
		a.sandboxForbidden(w, r)
		return
	}
	o, err := a.svc.OrderByInvoice(r.Context(), chi.URLParam(r, "invoice"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.renderPage(w, payPage, http.StatusOK, payView{Number: o.OrderNumber, Amount: o.TotalPrice, Status: string(o.Status)})
}

// sandboxPayPost serves POST /sandbox/pay/{invoice} (form field status PAID
// or FAILED): the provider's notification, signed with the sandbox
// provider secret, handled by the provider webhook's own handler.
func (a *api) sandboxPayPost(w http.ResponseWriter, r *http.Request) {
	if !a.sandboxAllowed(r) {
		a.sandboxForbidden(w, r)
		return
	}
	o, err := a.svc.OrderByInvoice(r.Context(), chi.URLParam(r, "invoice"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	status := r.PostFormValue("status")
	if status != ord.ProviderPaid && status != ord.ProviderFailed {
		status = ord.ProviderFailed
	}
	body, err := json.Marshal(ord.ProviderNotification{InvoiceID: o.InvoiceID, MerchantID: a.sandbox.MerchantID,
		Amount: o.TotalPrice, Status: status, PaidAt: a.now().UTC()})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	req := httptest.NewRequestWithContext(r.Context(), http.MethodPost, "/api/payments/provider-webhook", bytes.NewReader(body))
	req.Header.Set(webhook.HeaderProviderSignature, webhook.SignHex(a.sandbox.ProviderSecret, body))
	var res struct {
		Result string `json:"result"`
		Error  string `json:"error"`
	}
	rec, relayed := a.deliver(w, r, a.providerWebhook, req, &res)
	if relayed {
		return
	}
	o, _ = a.svc.OrderByInvoice(r.Context(), o.InvoiceID)
	v := payView{Number: o.OrderNumber, Amount: o.TotalPrice, Status: string(o.Status), OK: rec.Code == http.StatusOK}
	if v.OK {
		v.Result = "Notification " + status + " delivered (" + res.Result + ")."
	} else {
		v.Result = "Not delivered: " + res.Error
	}
	a.renderPage(w, payPage, map[bool]int{true: http.StatusOK, false: rec.Code}[v.OK], v)
}

// deliver runs a webhook's own handler on req, as the outside system's call
// would reach it. A client of the sandbox page that accepts JSON (a
// program, such as portal admin ordering simulate-message) gets the
// webhook's answer as it is, and relayed is true; otherwise the answer is
// decoded into res for the page.
func (a *api) deliver(w http.ResponseWriter, r *http.Request, handler http.HandlerFunc, req *http.Request, res any) (rec *httptest.ResponseRecorder, relayed bool) {
	rec = httptest.NewRecorder()
	handler(rec, req)
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return rec, true
	}
	_ = json.Unmarshal(rec.Body.Bytes(), res)
	return rec, false
}
