package ordering

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// HTTPPayments asks a payment provider for an order's invoice over HTTP
// (docs/api/ordering.md, "Payment provider"): a POST of {merchantId,
// orderId, orderNumber, amount, currency} to URL, signed like the
// provider's webhooks (x-provider-signature: hex HMAC-SHA256 of the body
// with Secret), answered {invoiceId, paymentUrl}. Providers with another
// API sit behind a small relay that speaks this one.
type HTTPPayments struct {
	URL, Secret, MerchantID string
	// Client makes the calls; it should carry a timeout.
	Client *http.Client
}

// Invoice returns the provider's invoice of o.
func (p HTTPPayments) Invoice(ctx context.Context, o Order) (string, string, error) {
	body, err := json.Marshal(map[string]any{"merchantId": p.MerchantID, "orderId": o.ID, "orderNumber": o.OrderNumber,
		"amount": o.TotalPrice, "currency": "IDR"})
	if err != nil {
		return "", "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(body))
	if err != nil {
		return "", "", fmt.Errorf("payment provider: %w", err)
	}
	mac := hmac.New(sha256.New, []byte(p.Secret))
	mac.Write(body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-provider-signature", hex.EncodeToString(mac.Sum(nil)))
	resp, err := p.Client.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("payment provider: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", "", fmt.Errorf("payment provider: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return "", "", fmt.Errorf("payment provider: %s", resp.Status)
	}
	var out struct {
		InvoiceID  string `json:"invoiceId"`
		PaymentURL string `json:"paymentUrl"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return "", "", fmt.Errorf("payment provider: decode answer: %w", err)
	}
	if u, err := url.Parse(out.PaymentURL); out.InvoiceID == "" || err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return "", "", fmt.Errorf("payment provider: the answer lacks an invoiceId or an http(s) paymentUrl")
	}
	return out.InvoiceID, out.PaymentURL, nil
}
