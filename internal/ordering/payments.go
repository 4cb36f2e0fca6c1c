package ordering

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // receipts: JPEG
	_ "image/png"  // receipts: PNG
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	_ "golang.org/x/image/webp" // receipts: WebP

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/blobstore"
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
	// File is the receipt's name in the legacy proof directory, for
	// receipts uploaded before the blob store; empty for newer ones, whose
	// bytes are the blob ProofKey(order id, SHA256). The API leaves it out.
	File        string    `json:"file,omitempty"`
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

// ProofKey is the blob store key of the receipt of order orderID whose
// bytes have the SHA-256 sha (hex): receipts/<order id>/<sha256>.
func ProofKey(orderID, sha string) string { return "receipts/" + orderID + "/" + sha }

// UploadProof stores the receipt image of the customer's unpaid order and
// moves the order to WAITING_VERIFICATION. The image goes to the blob store
// first, under ProofKey, and the order refers to it only once it is stored:
// a failed upload changes no order. A later upload for a rejected order
// replaces the earlier one on the order (the old blob is deleted). When the
// blob store cannot be reached the error wraps blobstore.ErrUnavailable (the
// API answers 503 BLOB_STORE_UNAVAILABLE) and nothing is changed.
func (s *Service) UploadProof(ctx context.Context, u User, orderID string, data []byte, bankInfo string) (Order, error) {
	if utf8.RuneCountInString(bankInfo) > MaxBankInfoLen {
		return Order{}, apperr.Errorf(apperr.Invalid, "INVALID_BANK_INFO", "bankInfo is longer than %d characters", MaxBankInfoLen)
	}
	ct, _, err := checkProof(data)
	if err != nil {
		return Order{}, err
	}
	if s.cfg.Blobs == nil {
		return Order{}, fmt.Errorf("upload proof: no blob store is configured")
	}
	if _, err := s.OrderFor(ctx, u, orderID); err != nil {
		return Order{}, err
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	key := ProofKey(orderID, sha)
	if err := s.cfg.Blobs.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		return Order{}, fmt.Errorf("upload proof: store the receipt: %w", err)
	}
	now := s.cfg.Now().UTC()
	var old *Proof
	o, err := s.Transition(ctx, Actor{User: &u}, orderID, StatusWaitingVerification, "", func(o *Order) {
		old = o.Proof
		o.Proof = &Proof{ContentType: ct, Size: int64(len(data)), SHA256: sha,
			BankInfo: strings.TrimSpace(bankInfo), UploadedAt: now}
		o.Payments = append(o.Payments, PaymentEvent{At: now, Source: "receipt", Status: "UPLOADED", Amount: o.TotalPrice, Accepted: true})
	})
	if err != nil {
		// The blob goes unless the order's receipt is these very bytes
		// (uploaded before, or by a concurrent upload of the same image,
		// a double submit, that won).
		if latest, gerr := s.store.GetOrder(ctx, orderID); gerr == nil && (latest.Proof == nil || latest.Proof.SHA256 != sha) {
			s.deleteBlob(ctx, key)
		}
		return Order{}, err
	}
	if old != nil && old.SHA256 != sha {
		s.deleteBlob(ctx, ProofKey(orderID, old.SHA256))
	}
	if old != nil && old.File != "" && s.cfg.ProofDir != "" {
		os.Remove(filepath.Join(s.cfg.ProofDir, filepath.Base(old.File)))
	}
	return o, nil
}

// deleteBlob removes a blob nothing refers to any more; a failure is
// logged (the blob stays, unreferenced, for a later garbage collection).
func (s *Service) deleteBlob(ctx context.Context, key string) {
	if err := s.cfg.Blobs.Delete(context.WithoutCancel(ctx), key); err != nil {
		s.log.WarnContext(ctx, "ordering: delete an unreferenced receipt", "key", key, "err", err)
	}
}

// ProofFile returns the receipt of an order and its bytes, for its customer
// and for the users who verify payments; anyone else gets ErrOrderNotFound.
// The caller closes the reader. The bytes come from the blob store; a
// receipt uploaded before the blob store existed and not yet copied into it
// is read from the legacy proof directory (Config.ProofDir) when one is set.
func (s *Service) ProofFile(ctx context.Context, u User, orderID string) (Proof, io.ReadCloser, error) {
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
	if s.cfg.Blobs == nil {
		return Proof{}, nil, fmt.Errorf("open proof: no blob store is configured")
	}
	rc, _, err := s.cfg.Blobs.Open(ctx, ProofKey(o.ID, o.Proof.SHA256))
	if errors.Is(err, blobstore.ErrNotFound) && o.Proof.File != "" && s.cfg.ProofDir != "" {
		f, ferr := os.Open(filepath.Join(s.cfg.ProofDir, filepath.Base(o.Proof.File)))
		if ferr != nil {
			return Proof{}, nil, fmt.Errorf("open proof: not in the blob store (%w), nor in the proof directory: %w", err, ferr)
		}
		return *o.Proof, f, nil
	}
	if err != nil {
		return Proof{}, nil, fmt.Errorf("open proof: %w", err)
	}
	return *o.Proof, rc, nil
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
