package console

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// officeSettingsForm is the settings form as typed: every field of ord.Settings.
type officeSettingsForm struct {
	OrderPrefix, TimeZone, ShopLat, ShopLng, DeliveryBaseFee, DeliveryPerKm, DeliveryMaxKm, PaymentExpiryMinutes string
	ShopName, ShopTagline, OpeningHours                                                                          string
}

// officeSettingsView is the settings page's data.
type officeSettingsView struct {
	Form  officeSettingsForm
	Saved bool
}

// officeFloat writes a coordinate or a distance as typed back.
func officeFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// officeSettingsPage serves GET /console/shop/settings (?saved=1 after a save).
func (c *console) officeSettingsPage(w http.ResponseWriter, r *http.Request) {
	st, err := c.ordering.Service.Settings(r.Context())
	sv := officeSettingsView{Saved: r.URL.Query().Get("saved") == "1", Form: officeSettingsForm{OrderPrefix: st.OrderPrefix, TimeZone: st.TimeZone,
		ShopLat: officeFloat(st.ShopLat), ShopLng: officeFloat(st.ShopLng), DeliveryBaseFee: strconv.FormatInt(st.DeliveryBaseFee, 10),
		DeliveryPerKm: strconv.FormatInt(st.DeliveryPerKm, 10), DeliveryMaxKm: officeFloat(st.DeliveryMaxKm),
		PaymentExpiryMinutes: strconv.Itoa(st.PaymentExpiryMinutes), ShopName: st.ShopName, ShopTagline: st.ShopTagline,
		OpeningHours: st.OpeningHours}}
	c.officeRender(w, r, "office_settings", http.StatusOK, sv, err)
}

// errOfficeSettingsNumbers refuses settings whose numbers are not numbers.
var errOfficeSettingsNumbers = officeFormError("the coordinates and the distance must be numbers, the fees and the minutes whole numbers")

// officeSaveSettings serves POST /console/shop/settings: the whole settings,
// through SetSettings (its validation).
func (c *console) officeSaveSettings(w http.ResponseWriter, r *http.Request) {
	v := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	f := officeSettingsForm{OrderPrefix: v("order_prefix"), TimeZone: v("time_zone"), ShopLat: v("shop_lat"), ShopLng: v("shop_lng"),
		DeliveryBaseFee: v("delivery_base_fee"), DeliveryPerKm: v("delivery_per_km"), DeliveryMaxKm: v("delivery_max_km"),
		PaymentExpiryMinutes: v("payment_expiry_minutes"), ShopName: v("shop_name"), ShopTagline: v("shop_tagline"),
		OpeningHours: v("opening_hours")}
	st := ord.Settings{OrderPrefix: f.OrderPrefix, TimeZone: f.TimeZone, ShopName: f.ShopName, ShopTagline: f.ShopTagline,
		OpeningHours: f.OpeningHours}
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
	base, ok1 := officeWhole(f.DeliveryBaseFee)
	perKm, ok2 := officeWhole(f.DeliveryPerKm)
	expiry, ok3 := officeWhole(f.PaymentExpiryMinutes)
	st.DeliveryBaseFee, st.DeliveryPerKm, st.PaymentExpiryMinutes = base, perKm, int(expiry)
	var err error
	if !ok || !ok1 || !ok2 || !ok3 {
		err = errOfficeSettingsNumbers
	} else {
		_, err = c.ordering.Service.SetSettings(r.Context(), st)
	}
	if err != nil {
		c.officeRender(w, r, "office_settings", apperr.KindOf(err).Status(), officeSettingsView{Form: f}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/settings?saved=1", http.StatusSeeOther)
}
