package ordering

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHTTPPayments: the invoice request is signed and carries the order's
// amount; bad answers are errors.
func TestHTTPPayments(t *testing.T) {
	answer := `{"invoiceId":"INV-1","paymentUrl":"https://pay.example/INV-1"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte("s3cret"))
		mac.Write(body)
		if r.Header.Get("x-provider-signature") != hex.EncodeToString(mac.Sum(nil)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var req map[string]any
		if json.Unmarshal(body, &req) != nil || req["amount"] != float64(46000) || req["merchantId"] != "M-1" {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	p := HTTPPayments{URL: srv.URL, Secret: "s3cret", MerchantID: "M-1", Client: srv.Client()}
	o := Order{ID: "o1", OrderNumber: "ORD-20261125-001", TotalPrice: 46000}
	inv, u, err := p.Invoice(t.Context(), o)
	if err != nil || inv != "INV-1" || u != "https://pay.example/INV-1" {
		t.Fatalf("Invoice: %q %q %v", inv, u, err)
	}
	p.Secret = "wrong"
	if _, _, err := p.Invoice(t.Context(), o); err == nil {
		t.Fatal("a refused call gave no error")
	}
	p.Secret = "s3cret"
	answer = `{"invoiceId":"INV-2","paymentUrl":"javascript:alert(1)"}`
	if _, _, err := p.Invoice(t.Context(), o); err == nil {
		t.Fatal("a javascript: payment URL was accepted")
	}
}
