package console

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/orderweb"
)

// officePaymentsView is the payments page's data: the orders whose receipt
// waits for verification, and the decision just made, if any.
type officePaymentsView struct {
	office
	Orders []ord.Order
	// Done is "approved" or "rejected" after a decision on DoneOrder.
	Done, DoneOrder string
}

// officePaymentsPage serves GET /console/shop/payments.
func (c *console) officePaymentsPage(w http.ResponseWriter, r *http.Request) {
	pv := officePaymentsView{}
	if d := r.URL.Query().Get("done"); d == "approved" || d == "rejected" {
		pv.Done, pv.DoneOrder = d, r.URL.Query().Get("order")
	}
	c.renderOfficePayments(w, r, http.StatusOK, pv, nil)
}

// renderOfficePayments renders the payments page with err, if any.
func (c *console) renderOfficePayments(w http.ResponseWriter, r *http.Request, status int, pv officePaymentsView, err error) {
	pv.office = c.newOffice(r.Context())
	list, lerr := c.ordering.Service.AwaitingVerification(r.Context(), shopUserFrom(r))
	if err == nil {
		err = lerr
	}
	pv.Orders = list
	c.officeRender(w, r, "office_payments", status, pv, err)
}

// officeProof serves GET /console/shop/payments/{id}/proof: the receipt
// image, as the API's GET /api/payments/{orderId}/proof serves it.
func (c *console) officeProof(w http.ResponseWriter, r *http.Request) {
	p, f, err := c.ordering.Service.ProofFile(r.Context(), shopUserFrom(r), chi.URLParam(r, "id"))
	if err != nil {
		if e := apperr.From(err); e != nil {
			http.Error(w, e.Message, e.Kind.Status())
			return
		}
		if respond.BlobStoreUnavailable(err) {
			c.log.Warn("console: payment proof", "err", err)
			status, _, msg := respond.SetBlobStoreUnavailable(w)
			http.Error(w, msg, status)
			return
		}
		c.log.Error("console: payment proof", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	orderweb.WriteProof(w, p, f)
}

// officeVerify serves POST /console/shop/payments/{id}/verify (decision
// approve or reject, reason): the decision through VerifyPayment, whose
// rules (a rejection needs its reason, the order must be waiting) apply.
func (c *console) officeVerify(w http.ResponseWriter, r *http.Request) {
	decision := r.PostFormValue("decision")
	if decision != "approve" && decision != "reject" {
		c.renderOfficePayments(w, r, http.StatusBadRequest, officePaymentsView{}, officeFormError("decision must be approve or reject"))
		return
	}
	o, err := c.ordering.Service.VerifyPayment(r.Context(), shopUserFrom(r), chi.URLParam(r, "id"), decision == "approve",
		r.PostFormValue("reason"))
	if err != nil {
		c.renderOfficePayments(w, r, apperr.KindOf(err).Status(), officePaymentsView{}, err)
		return
	}
	done := map[string]string{"approve": "approved", "reject": "rejected"}[decision]
	http.Redirect(w, r, "/console/shop/payments?done="+done+"&order="+url.QueryEscape(o.OrderNumber), http.StatusSeeOther)
}
