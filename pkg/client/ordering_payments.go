package client

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// PaymentsService uploads and verifies payment receipts.
type PaymentsService service

// UploadProof sends the receipt image of an order (POST
// /api/payments/upload-proof, multipart): JPEG, PNG or WebP, at most 5 MiB.
func (s *PaymentsService) UploadProof(ctx context.Context, orderID, bankInfo string, image []byte) (*Response, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("orderId", orderID)
	mw.WriteField("bankInfo", bankInfo)
	fw, err := mw.CreateFormFile("paymentProof", "receipt")
	if err != nil {
		return nil, err
	}
	fw.Write(image)
	if err := mw.Close(); err != nil {
		return nil, err
	}
	req, err := s.client.newRequest(ctx, http.MethodPost, "api/payments/upload-proof", nil, bytes.NewReader(b.Bytes()), credOrdering)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b.Bytes())), nil }
	return s.client.do(ctx, req, nil, decodeExamError)
}

// Proof writes an order's receipt image to w (GET /api/payments/{id}/proof).
func (s *PaymentsService) Proof(ctx context.Context, orderID string, w io.Writer) (*Response, error) {
	return s.client.ordering(ctx, http.MethodGet, "payments/"+url.PathEscape(orderID)+"/proof", nil, nil, w, credOrdering)
}

// Verify approves or rejects (with the reason) an order's receipt (POST
// /api/payments/{id}/verify).
func (s *PaymentsService) Verify(ctx context.Context, orderID string, approve bool, reason string) (*Order, *Response, error) {
	var out struct {
		Order *Order `json:"order"`
	}
	body := map[string]any{"approve": approve, "reason": reason}
	resp, err := s.client.ordering(ctx, http.MethodPost, "payments/"+url.PathEscape(orderID)+"/verify", nil, body, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Order, resp, nil
}

// ProviderNotification is a payment provider's webhook body.
type ProviderNotification struct {
	InvoiceID  string    `json:"invoiceId"`
	MerchantID string    `json:"merchantId"`
	Amount     int64     `json:"amount"`
	Status     string    `json:"status"` // PAID, EXPIRED, FAILED, REFUNDED
	PaidAt     time.Time `json:"paidAt"`
}

// DeliverProviderNotification posts a notification to the portal's
// provider webhook, signed with secret, as the payment provider does (for
// tests and integrations). The answer's result is APPLIED, DUPLICATE or
// RECORDED.
func (s *PaymentsService) DeliverProviderNotification(ctx context.Context, secret string, n *ProviderNotification) (string, *Response, error) {
	body, err := jsonBody(n)
	if err != nil {
		return "", nil, err
	}
	req, err := s.client.newRequest(ctx, http.MethodPost, "api/payments/provider-webhook", nil, body, credNone)
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("x-provider-signature", SignProviderWebhook(secret, body))
	var out struct {
		Result string `json:"result"`
	}
	resp, err := s.client.do(ctx, req, &out, decodeExamError)
	return out.Result, resp, err
}

// KitchenService is the kitchen display and the point of sale.
type KitchenService service

// Orders returns the paid and in-progress orders, oldest first (GET
// /api/kitchen/orders).
func (s *KitchenService) Orders(ctx context.Context) ([]Order, *Response, error) {
	var out struct {
		Orders []Order `json:"orders"`
	}
	resp, err := s.client.ordering(ctx, http.MethodGet, "kitchen/orders", nil, nil, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Orders, resp, nil
}

// CounterOrder is a walk-in customer's order at the point of sale.
type CounterOrder struct {
	OrderRequest
	PaymentMethod string `json:"paymentMethod"` // CASH, QRIS or CARD
	CustomerName  string `json:"customerName,omitempty"`
}

// Counter places a walk-in order, paid on creation (POST /api/pos/orders).
func (s *KitchenService) Counter(ctx context.Context, req *CounterOrder) (*Order, *Response, error) {
	ctx = creating(ctx)
	var out struct {
		Order *Order `json:"order"`
	}
	resp, err := s.client.ordering(ctx, http.MethodPost, "pos/orders", nil, req, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Order, resp, nil
}

// Ledger is the paid orders of a period with their totals.
type Ledger struct {
	From           string           `json:"from"`
	To             string           `json:"to"`
	Entries        []LedgerEntry    `json:"entries"`
	TotalsByDay    map[string]int64 `json:"totalsByDay"`
	TotalsByMethod map[string]int64 `json:"totalsByMethod"`
	Total          int64            `json:"total"`
	OrderCount     int              `json:"orderCount"`
}

// LedgerEntry is a paid order of the ledger.
type LedgerEntry struct {
	Day           string    `json:"day"`
	PaidAt        time.Time `json:"paidAt"`
	OrderNumber   string    `json:"orderNumber"`
	PaymentMethod string    `json:"paymentMethod"`
	ItemsTotal    int64     `json:"itemsTotal"`
	ShippingCost  int64     `json:"shippingCost"`
	TotalPrice    int64     `json:"totalPrice"`
	Status        string    `json:"status"`
}

// LedgerService is the owner's ledger.
type LedgerService service

// Get returns the ledger from..to, the shop's dates YYYY-MM-DD (GET /api/ledger).
func (s *LedgerService) Get(ctx context.Context, from, to string) (*Ledger, *Response, error) {
	out := new(Ledger)
	resp, err := s.client.ordering(ctx, http.MethodGet, "ledger", url.Values{"from": {from}, "to": {to}}, nil, out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// CSV writes the ledger's CSV export to w (GET /api/ledger?format=csv).
func (s *LedgerService) CSV(ctx context.Context, from, to string, w io.Writer) (*Response, error) {
	return s.client.ordering(ctx, http.MethodGet, "ledger", url.Values{"from": {from}, "to": {to}, "format": {"csv"}}, nil, w, credOrdering)
}

// OutboundMessage is a message the shop sent, or did not, with the reason.
type OutboundMessage struct {
	ID        string     `json:"id"`
	Channel   string     `json:"channel"`
	To        string     `json:"to"`
	Text      string     `json:"text"`
	OrderID   string     `json:"orderId"`
	Status    string     `json:"status"`
	Reason    string     `json:"reason"`
	Attempts  int        `json:"attempts"`
	CreatedAt time.Time  `json:"createdAt"`
	NotBefore time.Time  `json:"notBefore"`
	SentAt    *time.Time `json:"sentAt"`
}

// GatewayService is the shop's outbound messages and consents.
type GatewayService service

// Messages returns the latest outbound messages, newest first (GET
// /api/gateway/messages, OWNER).
func (s *GatewayService) Messages(ctx context.Context, limit int) ([]OutboundMessage, *Response, error) {
	var out struct {
		Messages []OutboundMessage `json:"messages"`
	}
	var q url.Values
	if limit > 0 {
		q = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	resp, err := s.client.ordering(ctx, http.MethodGet, "gateway/messages", q, nil, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Messages, resp, nil
}

// RegisterConsent records that a number may receive the shop's messages
// (POST /api/gateway/consent, ADMIN, OWNER).
func (s *GatewayService) RegisterConsent(ctx context.Context, number string) (*Response, error) {
	return s.client.ordering(ctx, http.MethodPost, "gateway/consent", nil, map[string]string{"messengerNumber": number}, nil, credOrdering)
}
