package ordering

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/seedhq/portal/internal/apperr"
)

// Shipping types of an order.
const (
	ShippingDelivery = "DELIVERY" // to the customer's address
	ShippingPickup   = "PICKUP"   // collected at the counter
	ShippingDineIn   = "DINE_IN"  // eaten at the shop
)

// Settings are the shop's operational settings (ADMIN and OWNER).
type Settings struct {
	// OrderPrefix starts every order number: 1 to 8 upper-case letters or
	// digits.
	OrderPrefix string `json:"orderPrefix"`
	// TimeZone is the shop's IANA time zone: order numbers carry the
	// shop's date.
	TimeZone string `json:"timeZone"`
	// ShopLat and ShopLng locate the shop for the distance of deliveries;
	// both 0: not set.
	ShopLat float64 `json:"shopLat"`
	ShopLng float64 `json:"shopLng"`
	// DeliveryBaseFee is the shipping cost of every delivery, and
	// DeliveryPerKm is added per started kilometre of the straight-line
	// distance from the shop when the shop and the order have a location.
	DeliveryBaseFee int64 `json:"deliveryBaseFee"`
	DeliveryPerKm   int64 `json:"deliveryPerKm"`
	// DeliveryMaxKm refuses deliveries farther than this (0: no limit).
	DeliveryMaxKm float64 `json:"deliveryMaxKm"`
	// PaymentExpiryMinutes is how long an unpaid order waits before it
	// expires.
	PaymentExpiryMinutes int `json:"paymentExpiryMinutes"`
	// ShopName is the name the shop's customers see on its pages (at most
	// MaxShopNameLen characters, one line); empty: a neutral default.
	ShopName string `json:"shopName"`
	// ShopTagline is a short line under the name (at most
	// MaxShopTaglineLen characters, one line); may be empty.
	ShopTagline string `json:"shopTagline"`
	// OpeningHours are the shop's hours as free text (at most
	// MaxOpeningHoursLen characters, line breaks allowed); may be empty.
	OpeningHours string `json:"openingHours"`
}

// Limits of the shop's texts in its settings, in characters.
const (
	MaxShopNameLen     = 60
	MaxShopTaglineLen  = 140
	MaxOpeningHoursLen = 300
	// MaxOpeningHoursLines is the most lines OpeningHours may have.
	MaxOpeningHoursLines = 10
)

// DefaultSettings are the settings of a shop that set none.
func DefaultSettings() Settings {
	return Settings{OrderPrefix: "ORD", TimeZone: "Asia/Jakarta", DeliveryBaseFee: 10_000,
		PaymentExpiryMinutes: 60}
}

var prefixRE = regexp.MustCompile(`^[A-Z0-9]{1,8}$`)

func invalidSettings(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "INVALID_SETTINGS", format, args...)
}

// Normalize trims the shop's texts and writes the line breaks of the
// opening hours as "\n".
func (st *Settings) Normalize() {
	st.ShopName, st.ShopTagline = strings.TrimSpace(st.ShopName), strings.TrimSpace(st.ShopTagline)
	hours := strings.ReplaceAll(strings.ReplaceAll(st.OpeningHours, "\r\n", "\n"), "\r", "\n")
	st.OpeningHours = strings.TrimSpace(hours)
}

// validShopText checks a text of the shop's settings: UTF-8, at most limit
// characters, no control character but, when lines is set, line breaks
// (at most MaxOpeningHoursLines lines).
func validShopText(field, s string, limit int, lines bool) error {
	if !utf8.ValidString(s) {
		return invalidSettings("%s is not UTF-8 text", field)
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return invalidSettings("%s is %d characters long; at most %d are allowed", field, n, limit)
	}
	if lines && strings.Count(s, "\n") >= MaxOpeningHoursLines {
		return invalidSettings("%s has more than %d lines", field, MaxOpeningHoursLines)
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(lines && r == '\n') {
			if lines {
				return invalidSettings("%s must not hold control characters other than line breaks", field)
			}
			return invalidSettings("%s must be one line without control characters", field)
		}
	}
	return nil
}

// Validate checks the settings (as Normalize leaves them).
func (st Settings) Validate() error {
	for _, f := range []struct {
		field, s string
		limit    int
		lines    bool
	}{
		{"shopName", st.ShopName, MaxShopNameLen, false},
		{"shopTagline", st.ShopTagline, MaxShopTaglineLen, false},
		{"openingHours", st.OpeningHours, MaxOpeningHoursLen, true},
	} {
		if err := validShopText(f.field, f.s, f.limit, f.lines); err != nil {
			return err
		}
	}
	switch {
	case !prefixRE.MatchString(st.OrderPrefix):
		return invalidSettings("orderPrefix must be 1 to 8 upper-case letters or digits")
	case st.ShopLat < -90 || st.ShopLat > 90 || st.ShopLng < -180 || st.ShopLng > 180:
		return invalidSettings("shopLat must be within -90..90 and shopLng within -180..180")
	case st.DeliveryBaseFee < 0 || st.DeliveryBaseFee > MaxPrice || st.DeliveryPerKm < 0 || st.DeliveryPerKm > MaxPrice:
		return invalidSettings("delivery fees must be amounts of rupiah from 0 to %d", MaxPrice)
	case st.DeliveryMaxKm < 0 || st.DeliveryMaxKm > 1000:
		return invalidSettings("deliveryMaxKm must be within 0..1000")
	case st.PaymentExpiryMinutes < 5 || st.PaymentExpiryMinutes > 7*24*60:
		return invalidSettings("paymentExpiryMinutes must be within 5..10080")
	}
	if _, err := time.LoadLocation(st.TimeZone); err != nil || st.TimeZone == "" {
		return invalidSettings("timeZone %q is not an IANA time zone (e.g. Asia/Jakarta)", st.TimeZone)
	}
	return nil
}

// location returns the shop's time zone.
func (st Settings) location() *time.Location {
	loc, err := time.LoadLocation(st.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// ErrOutOfRange refuses a delivery beyond DeliveryMaxKm.
var ErrOutOfRange = apperr.New(apperr.Unprocessable, "OUT_OF_DELIVERY_RANGE", "the address is beyond the shop's delivery range")

// ShippingCost returns the shipping cost of an order of the type to
// (lat, lng) (nil: no location): 0 for pick-up and dine-in; for a delivery
// the base fee plus DeliveryPerKm per started kilometre of the
// straight-line (haversine) distance from the shop, when both locations are
// known.
func (st Settings) ShippingCost(shippingType string, lat, lng *float64) (int64, error) {
	if shippingType != ShippingDelivery {
		return 0, nil
	}
	cost := st.DeliveryBaseFee
	if lat == nil || lng == nil || st.ShopLat == 0 && st.ShopLng == 0 {
		return cost, nil
	}
	km := haversineKm(st.ShopLat, st.ShopLng, *lat, *lng)
	if st.DeliveryMaxKm > 0 && km > st.DeliveryMaxKm {
		return 0, ErrOutOfRange
	}
	return cost + int64(math.Ceil(km))*st.DeliveryPerKm, nil
}

// haversineKm is the great-circle distance between two points, in km.
func haversineKm(lat1, lng1, lat2, lng2 float64) float64 {
	const earthKm = 6371.0088
	rad := math.Pi / 180
	dLat, dLng := (lat2-lat1)*rad, (lng2-lng1)*rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * earthKm * math.Asin(math.Sqrt(a))
}

// Settings returns the shop's settings (DefaultSettings until set).
func (s *Service) Settings(ctx context.Context) (Settings, error) {
	st, ok, err := s.store.GetSettings(ctx)
	if err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	if !ok {
		return DefaultSettings(), nil
	}
	return st, nil
}

// SetSettings normalises, validates and stores the settings.
func (s *Service) SetSettings(ctx context.Context, st Settings) (Settings, error) {
	st.Normalize()
	if err := st.Validate(); err != nil {
		return Settings{}, err
	}
	if err := s.store.PutSettings(ctx, st); err != nil {
		return Settings{}, fmt.Errorf("save settings: %w", err)
	}
	return st, nil
}
