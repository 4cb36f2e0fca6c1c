package ordering

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	_ "image/jpeg" // receipts: JPEG
	_ "image/png"  // receipts: PNG
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	_ "golang.org/x/image/webp" // receipts: WebP

	"github.com/seedhq/portal/internal/apperr"
)

// Payment receipts (the manual payment proof).
const (
	// MaxProofSize is the largest receipt image accepted: a phone's photo
	// or screenshot, not a scan of a book.
	MaxProofSize = 5 << 20
	// MaxProofPixels bounds the decoded size of a receipt image (a small
	// file may declare a huge image).
	MaxProofPixels = 50_000_000
	// MaxBankInfoLen bounds the bankInfo text.
	MaxBankInfoLen = 500
)

// Proof is the receipt a customer uploaded for an order.
type Proof struct {
	File        string    `json:"file,omitempty"` // name in the proof directory; the API leaves it out
	ContentType string    `json:"contentType"`
	Size        int64     `json:"size"`
	SHA256      string    `json:"sha256"`
	BankInfo    string    `json:"bankInfo"`
	UploadedAt  time.Time `json:"uploadedAt"`
}

// PaymentEvent is a payment notification or decision recorded on an order,
// accepted or not.
type PaymentEvent struct {
	At       time.Time `json:"at"`
	Source   string    `json:"source"` // provider, receipt, verification, counter
	Status   string    `json:"status"`
	Amount   int64     `json:"amount,omitempty"`
	Accepted bool      `json:"accepted"`
	Reason   string    `json:"reason,omitempty"`
}

// Errors of payments.
var (
	ErrProofType     = apperr.New(apperr.Invalid, "INVALID_PROOF", "paymentProof must be a JPEG, PNG or WebP image")
	ErrProofTooLarge = apperr.New(apperr.TooLarge, "PROOF_TOO_LARGE", fmt.Sprintf("paymentProof is larger than %d MiB", MaxProofSize>>20))
	ErrProofNotFound = apperr.New(apperr.NotFound, "PROOF_NOT_FOUND", "this order has no payment receipt")
)

// proofTypes are the accepted receipt formats by the name image.Decode
// gives them, with their content type and file extension.
var proofTypes = map[string]struct{ contentType, ext string }{
	"jpeg": {"image/jpeg", ".jpg"},
	"png":  {"image/png", ".png"},
	"webp": {"image/webp", ".webp"},
}

// checkProof returns the content type and extension of an accepted receipt
// image, judged by its content (its header and its decoded dimensions),
// never by the name or the type the client declared.
func checkProof(data []byte) (contentType, ext string, err error) {
	if len(data) > MaxProofSize {
		return "", "", ErrProofTooLarge
	}
	sniffed := http.DetectContentType(data)
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	t, ok := proofTypes[format]
	if err != nil || !ok || sniffed != t.contentType || cfg.Width <= 0 || cfg.Height <= 0 ||
		int64(cfg.Width)*int64(cfg.Height) > MaxProofPixels {
		return "", "", ErrProofType
	}
	return t.contentType, t.ext, nil
}

// UploadProof stores the receipt image of the customer's unpaid order and
// moves the order to WAITING_VERIFICATION. The file goes to the proof
// directory under a random name; a later upload for a rejected order
// replaces the earlier one on the order (the old file is removed).
func (s *Service) UploadProof(ctx context.Context, u User, orderID string, data []byte, bankInfo string) (Order, error) {
	if utf8.RuneCountInString(bankInfo) > MaxBankInfoLen {
		return Order{}, apperr.Errorf(apperr.Invalid, "INVALID_BANK_INFO", "bankInfo is longer than %d characters", MaxBankInfoLen)
	}
	ct, ext, err := checkProof(data)
	if err != nil {
		return Order{}, err
	}
	if s.cfg.ProofDir == "" {
		return Order{}, fmt.Errorf("upload proof: no proof directory is configured")
	}
	if _, err := s.OrderFor(ctx, u, orderID); err != nil {
		return Order{}, err
	}
	sum := sha256.Sum256(data)
	name := orderID + "-" + strings.ToLower(rand.Text()) + ext
	path := filepath.Join(s.cfg.ProofDir, name)
	if err := writeFileSync(path, data); err != nil {
		return Order{}, fmt.Errorf("upload proof: %w", err)
	}
	now := s.cfg.Now().UTC()
	var old string
	o, err := s.Transition(ctx, Actor{User: &u}, orderID, StatusWaitingVerification, "", func(o *Order) {
		if o.Proof != nil {
			old = o.Proof.File
		}
		o.Proof = &Proof{File: name, ContentType: ct, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]),
			BankInfo: strings.TrimSpace(bankInfo), UploadedAt: now}
		o.Payments = append(o.Payments, PaymentEvent{At: now, Source: "receipt", Status: "UPLOADED", Amount: o.TotalPrice, Accepted: true})
	})
	if err != nil {
		os.Remove(path)
		return Order{}, err
	}
	if old != "" {
		os.Remove(filepath.Join(s.cfg.ProofDir, old))
	}
	return o, nil
}

// writeFileSync writes data to a new file at path (mode 0600) and syncs it.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// ProofFile returns the receipt of an order, for its customer and for the
// users who verify payments; anyone else gets ErrOrderNotFound.
func (s *Service) ProofFile(ctx context.Context, u User, orderID string) (Proof, *os.File, error) {
	o, err := s.store.GetOrder(ctx, orderID)
	if err != nil {
		return Proof{}, nil, err
	}
	if o.UserID != u.ID && !u.Allows(MenuPayments) {
		return Proof{}, nil, ErrOrderNotFound
	}
	if o.Proof == nil {
		return Proof{}, nil, ErrProofNotFound
	}
	f, err := os.Open(filepath.Join(s.cfg.ProofDir, filepath.Base(o.Proof.File)))
	if err != nil {
		return Proof{}, nil, fmt.Errorf("open proof: %w", err)
	}
	return *o.Proof, f, nil
}

// AwaitingVerification returns the orders whose receipt waits for
// verification, oldest first, to a user allowed the payments menu.
func (s *Service) AwaitingVerification(ctx context.Context, u User) ([]Order, error) {
	if !u.Allows(MenuPayments) {
		return nil, ErrForbidden
	}
	list, err := s.store.ListOrders(ctx, OrderQuery{Statuses: []Status{StatusWaitingVerification}})
	if err != nil {
		return nil, fmt.Errorf("orders awaiting verification: %w", err)
	}
	return list, nil
}

// VerifyPayment approves (PAID, by bank transfer) or rejects (back to
// PENDING_PAYMENT, with the reason) the receipt of an order waiting for
// verification; u must be allowed the payments menu.
func (s *Service) VerifyPayment(ctx context.Context, u User, orderID string, approve bool, reason string) (Order, error) {
	reason = strings.TrimSpace(reason)
	to, status := StatusPaid, "APPROVED"
	if !approve {
		if reason == "" {
			return Order{}, apperr.New(apperr.Invalid, "REASON_REQUIRED", "a rejected receipt needs its reason (the customer reads it)")
		}
		to, status = StatusPendingPayment, "REJECTED"
	}
	st, err := s.Settings(ctx)
	if err != nil {
		return Order{}, err
	}
	now := s.cfg.Now().UTC()
	return s.Transition(ctx, Actor{User: &u}, orderID, to, reason, func(o *Order) {
		o.Payments = append(o.Payments, PaymentEvent{At: now, Source: "verification", Status: status, Amount: o.TotalPrice,
			Accepted: approve, Reason: reason})
		if approve {
			o.PaymentMethod = PaymentTransfer
		} else {
			// A rejected receipt: the customer has the full time again.
			exp := now.Add(time.Duration(st.PaymentExpiryMinutes) * time.Minute)
			o.ExpiresAt = &exp
		}
	})
}
