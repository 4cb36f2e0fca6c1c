package ordering

import (
	"errors"
	"io"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/orderweb"
	"github.com/seedhq/portal/internal/webhook"
)

// uploadBodyLimit bounds a receipt upload: the image and the form around
// it (its route's limit).
const uploadBodyLimit = ord.MaxProofSize + 64<<10

// uploadProof serves POST /api/payments/upload-proof (multipart/form-data:
// orderId, paymentProof, bankInfo; the order's customer): the receipt is
// checked by its content and the order waits for verification.
func (a *api) uploadProof(w http.ResponseWriter, r *http.Request) {
	mr, err := r.MultipartReader()
	if err != nil {
		a.writeError(w, r, apperr.New(apperr.Invalid, "INVALID_FORM", "the body must be multipart/form-data with orderId, paymentProof and bankInfo"))
		return
	}
	var orderID, bankInfo string
	var proof []byte
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			a.writeError(w, r, formError(err))
			return
		}
		switch part.FormName() {
		case "orderId", "bankInfo":
			v, err := io.ReadAll(io.LimitReader(part, 4<<10))
			if err != nil {
				a.writeError(w, r, formError(err))
				return
			}
			if part.FormName() == "orderId" {
				orderID = string(v)
			} else {
				bankInfo = string(v)
			}
		case "paymentProof":
			if proof, err = io.ReadAll(io.LimitReader(part, ord.MaxProofSize+1)); err != nil {
				a.writeError(w, r, formError(err))
				return
			}
		}
		part.Close()
	}
	if orderID == "" || proof == nil {
		a.writeError(w, r, apperr.New(apperr.Invalid, "INVALID_FORM", "orderId and paymentProof are required"))
		return
	}
	if _, err := a.svc.UploadProof(r.Context(), userFrom(r.Context()), orderID, proof, bankInfo); err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, okResponse{Success: true,
		Message: "Payment proof received; it is waiting for verification by the shop."})
}

// formError maps a multipart reading error: an over-limit body is 413.
func formError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return ord.ErrProofTooLarge
	}
	return apperr.New(apperr.Invalid, "INVALID_FORM", "the multipart body is malformed")
}

// proof serves GET /api/payments/{orderId}/proof: the receipt image, to the
// order's customer and to the users who verify payments only.
func (a *api) proof(w http.ResponseWriter, r *http.Request) {
	p, f, err := a.svc.ProofFile(r.Context(), userFrom(r.Context()), chi.URLParam(r, "orderId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	defer f.Close()
	orderweb.WriteProof(w, p, f)
}

type verifyRequest struct {
	Approve bool   `json:"approve"`
	Reason  string `json:"reason"`
}

// verifyPayment serves POST /api/payments/{orderId}/verify ({approve,
// reason}; ADMIN, OWNER, STAFF allowed the payments menu).
func (a *api) verifyPayment(w http.ResponseWriter, r *http.Request) {
	var req verifyRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	o, err := a.svc.VerifyPayment(r.Context(), userFrom(r.Context()), chi.URLParam(r, "orderId"), req.Approve, req.Reason)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, orderAnswer(o))
}

// providerBodyLimit bounds the payment provider's calls.
const providerBodyLimit = 64 << 10

// errProviderSignature answers a provider call whose signature does not hold.
var errProviderSignature = apperr.New(apperr.Unauthorized, "INVALID_SIGNATURE",
	"x-provider-signature is missing or is not the HMAC-SHA256 of the body")

type providerResponse struct {
	Success bool               `json:"success"`
	Result  ord.ProviderResult `json:"result"`
}

// providerWebhook serves POST /api/payments/provider-webhook: the payment
// provider's notification, x-provider-signature the hex HMAC-SHA256 of the
// raw body (checked before anything is decoded; during a rotation the
// previous secret works too).
func (a *api) providerWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, providerBodyLimit))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if err := webhook.VerifyHex(a.providerSecrets, r.Header.Get(webhook.HeaderProviderSignature), body); err != nil {
		a.log.WarnContext(r.Context(), "ordering: provider webhook refused", "err", err, "request_id", respond.RequestID(r.Context()))
		a.writeError(w, r, errProviderSignature)
		return
	}
	var n ord.ProviderNotification
	if err := respond.DecodeBytes(body, &n); err != nil {
		a.writeError(w, r, err)
		return
	}
	res, _, err := a.svc.ProviderNotify(r.Context(), n)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, providerResponse{Success: true, Result: res})
}
