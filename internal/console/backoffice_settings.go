package console

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// settingsForm is the settings form as typed: every field of ord.Settings.
type settingsForm struct {
	OrderPrefix, TimeZone, ShopLat, ShopLng, DeliveryBaseFee, DeliveryPerKm, DeliveryMaxKm, PaymentExpiryMinutes string
}

// settingsView is the settings page's data.
type settingsView struct {
	Form  settingsForm
	Saved bool
}

// formatFloat writes a coordinate or a distance as typed back.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// settingsPage serves GET /console/shop/settings (?saved=1 after a save).
func (c *console) settingsPage(w http.ResponseWriter, r *http.Request) {
	st, err := c.ordering.Service.Settings(r.Context())
	sv := settingsView{Saved: r.URL.Query().Get("saved") == "1", Form: settingsForm{OrderPrefix: st.OrderPrefix, TimeZone: st.TimeZone,
		ShopLat: formatFloat(st.ShopLat), ShopLng: formatFloat(st.ShopLng), DeliveryBaseFee: strconv.FormatInt(st.DeliveryBaseFee, 10),
		DeliveryPerKm: strconv.FormatInt(st.DeliveryPerKm, 10), DeliveryMaxKm: formatFloat(st.DeliveryMaxKm),
		PaymentExpiryMinutes: strconv.Itoa(st.PaymentExpiryMinutes)}}
	c.officeRender(w, r, "office_settings", http.StatusOK, sv, err)
}

// errSettingsNumbers refuses settings whose numbers are not numbers.
var errSettingsNumbers = formError("the coordinates and the distance must be numbers, the fees and the minutes whole numbers")

// saveSettings serves POST /console/shop/settings: the whole settings,
// through SetSettings (its validation).
func (c *console) saveSettings(w http.ResponseWriter, r *http.Request) {
	v := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	f := settingsForm{OrderPrefix: v("order_prefix"), TimeZone: v("time_zone"), ShopLat: v("shop_lat"), ShopLng: v("shop_lng"),
		DeliveryBaseFee: v("delivery_base_fee"), DeliveryPerKm: v("delivery_per_km"), DeliveryMaxKm: v("delivery_max_km"),
		PaymentExpiryMinutes: v("payment_expiry_minutes")}
	st := ord.Settings{OrderPrefix: f.OrderPrefix, TimeZone: f.TimeZone}
	ok := true
	for _, n := range []struct {
		s   string
		dst *float64
	}{{f.ShopLat, &st.ShopLat}, {f.ShopLng, &st.ShopLng}, {f.DeliveryMaxKm, &st.DeliveryMaxKm}} {
		if n.s == "" {
			continue
		}
		x, err := strconv.ParseFloat(n.s, 64)
		ok = ok && err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
		*n.dst = x
	}
	base, ok1 := parseWhole(f.DeliveryBaseFee)
	perKm, ok2 := parseWhole(f.DeliveryPerKm)
	expiry, ok3 := parseWhole(f.PaymentExpiryMinutes)
	st.DeliveryBaseFee, st.DeliveryPerKm, st.PaymentExpiryMinutes = base, perKm, int(expiry)
	var err error
	if !ok || !ok1 || !ok2 || !ok3 {
		err = errSettingsNumbers
	} else {
		_, err = c.ordering.Service.SetSettings(r.Context(), st)
	}
	if err != nil {
		c.officeRender(w, r, "office_settings", apperr.KindOf(err).Status(), settingsView{Form: f}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/settings?saved=1", http.StatusSeeOther)
}
