package console

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// maxMenuImportSize bounds a menu CSV upload.
const maxMenuImportSize = 2 << 20

// mountBackOffice serves the shop's back-office pages (point of sale,
// payments, menu, settings, ledger, users, bans) under /console/shop/.
// Each page and action is allowed by the role matrix of the ordering API
// (internal/httpapi/ordering/routes.go): the point of sale and payments to
// the users of that menu, the menu and settings to ADMIN and OWNER, the
// rest to the OWNER.
func (c *console) mountBackOffice(r chi.Router, cop *http.CrossOriginProtection) {
	pos, payments := shopMenu(ord.MenuPOS), shopMenu(ord.MenuPayments)
	managers, owner := shopRoles(ord.RoleAdmin, ord.RoleOwner), shopRoles(ord.RoleOwner)
	page := func(allowed func(ord.User) bool, h http.HandlerFunc) http.Handler {
		return c.shopUser(c.shopAllow(allowed, h))
	}
	action := func(allowed func(ord.User) bool, h http.HandlerFunc) http.Handler {
		return cop.Handler(c.shopUser(c.shopAllow(allowed, c.checkCSRF(shopArea, h))))
	}
	r.Method(http.MethodGet, "/pos", page(pos, c.posPage))
	r.Method(http.MethodPost, "/pos", action(pos, c.posSale))
	r.Method(http.MethodGet, "/pos/orders/{id}", page(pos, c.posReceipt))
	r.Method(http.MethodGet, "/payments", page(payments, c.officePaymentsPage))
	r.Method(http.MethodGet, "/payments/{id}/proof", page(payments, c.officeProof))
	r.Method(http.MethodPost, "/payments/{id}/verify", action(payments, c.officeVerify))
	r.Method(http.MethodGet, "/menu", page(managers, c.officeMenuPage))
	r.Method(http.MethodPost, "/menu/categories", action(managers, c.officeCreateCategory))
	r.Method(http.MethodPost, "/menu/categories/{id}", action(managers, c.officeUpdateCategory))
	r.Method(http.MethodPost, "/menu/categories/{id}/delete", action(managers, c.officeDeleteCategory))
	r.Method(http.MethodPost, "/menu/items", action(managers, c.officeCreateItem))
	r.Method(http.MethodPost, "/menu/items/{id}", action(managers, c.officeUpdateItem))
	r.Method(http.MethodPost, "/menu/items/{id}/delete", action(managers, c.officeDeleteItem))
	r.With(limitBody(maxMenuImportSize+64<<10)).Method(http.MethodPost, "/menu/import", action(managers, c.officeImportMenu))
	r.Method(http.MethodGet, "/settings", page(managers, c.officeSettingsPage))
	r.Method(http.MethodPost, "/settings", action(managers, c.officeSaveSettings))
	r.Method(http.MethodGet, "/ledger", page(owner, c.ledgerPage))
	r.Method(http.MethodGet, "/ledger.csv", page(owner, c.ledgerCSV))
	r.Method(http.MethodGet, "/users", page(owner, c.officeUsersPage))
	r.Method(http.MethodPost, "/users/{id}/role", action(owner, c.officeSetRole))
	r.Method(http.MethodGet, "/bans", page(owner, c.officeBansPage))
	r.Method(http.MethodPost, "/bans/{id}/lift", action(owner, c.officeLiftBan))
}

// office formats amounts and times for the back-office templates; every
// page's data embeds it.
type office struct{ loc *time.Location }

// Rp formats n rupiah the Indonesian way: "Rp 12.500".
func (office) Rp(n int64) string {
	digits := strconv.FormatInt(n, 10)
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
		digits = digits[1:]
	}
	b.WriteString("Rp ")
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// When formats t in the shop's time zone.
func (o office) When(t time.Time) string { return t.In(o.loc).Format("2006-01-02 15:04") }

// newOffice returns the formatters in the shop's time zone (UTC when the
// settings cannot be read: the page that needs them reports that error).
func (c *console) newOffice(ctx context.Context) office {
	st, err := c.ordering.Service.Settings(ctx)
	if err != nil {
		return office{loc: time.UTC}
	}
	loc, err := time.LoadLocation(st.TimeZone)
	if err != nil {
		return office{loc: time.UTC}
	}
	return office{loc: loc}
}

// now is the ordering API's clock (tests fix it), else the time.
func (c *console) now() time.Time {
	if c.ordering.Now != nil {
		return c.ordering.Now()
	}
	return time.Now()
}

// officeRender renders a back-office page with data; err, when not nil,
// is shown on it (a domain error with its own message and status).
func (c *console) officeRender(w http.ResponseWriter, r *http.Request, page string, status int, data any, err error) {
	v := c.shopView(r)
	if err != nil {
		status = c.showError(&v, err)
	}
	v.Data = data
	c.render(w, r, page, status, v)
}

// officeFormError is a form field the console could not read.
func officeFormError(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "INVALID_FORM", format, args...)
}

// officeWhole reads a whole number typed in a form ("" is 0).
func officeWhole(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
