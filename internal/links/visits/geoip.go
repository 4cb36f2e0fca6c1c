package visits

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/oschwald/maxminddb-golang/v2"
)

// geoRecord is the part of a GeoLite2/GeoIP2 Country or City record we read.
type geoRecord struct {
	Country struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"country"`
	RegisteredCountry struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"registered_country"`
}

// openGeoIP opens a GeoLite2/GeoIP2 Country or City database and checks its type.
func openGeoIP(path string) (*maxminddb.Reader, error) {
	db, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("visits: GeoIPPath %q: open GeoIP database: %w", path, err)
	}
	t := db.Metadata.DatabaseType
	if !strings.Contains(t, "Country") && !strings.Contains(t, "City") && !strings.Contains(t, "Enterprise") {
		db.Close()
		return nil, fmt.Errorf("visits: GeoIPPath %q: database type %q has no country data (want a GeoLite2 or GeoIP2 Country or City database)", path, t)
	}
	return db, nil
}

// lookupCountry returns the country of ip in db, falling back to the
// registered country (anycast and some hosting networks have only that), or "".
func lookupCountry(db *maxminddb.Reader, ip netip.Addr) string {
	if db == nil || !ip.IsValid() {
		return ""
	}
	res := db.Lookup(ip.Unmap())
	if !res.Found() {
		return ""
	}
	var rec geoRecord
	if err := res.Decode(&rec); err != nil {
		return ""
	}
	if c := normalizeCountry(rec.Country.ISOCode); c != "" {
		return c
	}
	return normalizeCountry(rec.RegisteredCountry.ISOCode)
}
