package visits

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oschwald/maxminddb-golang/v2"
)

// This file writes tiny MaxMind DB files for the tests, following the format
// specification (https://maxmind.github.io/MaxMind-DB/): an IPv6 search tree
// with 24-bit records, a 16-byte separator, the data section, then the
// metadata after its marker. IPv4 networks live under ::/96.

type mmdbUint16 uint16
type mmdbUint32 uint32
type mmdbUint64 uint64

// mmdbEncode encodes string, map[string]any, []any and the mmdbUint types.
func mmdbEncode(t testing.TB, b *bytes.Buffer, v any) {
	t.Helper()
	ctrl := func(typ, size int) {
		if size >= 29 {
			t.Fatalf("mmdb test writer: size %d too large", size)
		}
		if typ <= 7 {
			b.WriteByte(byte(typ<<5 | size))
		} else {
			b.WriteByte(byte(size))
			b.WriteByte(byte(typ - 7))
		}
	}
	uint := func(typ int, n uint64, max int) {
		var buf [8]byte
		binary.BigEndian.PutUint64(buf[:], n)
		bs := bytes.TrimLeft(buf[8-max:], "\x00")
		ctrl(typ, len(bs))
		b.Write(bs)
	}
	switch v := v.(type) {
	case string:
		ctrl(2, len(v))
		b.WriteString(v)
	case mmdbUint16:
		uint(5, uint64(v), 2)
	case mmdbUint32:
		uint(6, uint64(v), 4)
	case mmdbUint64:
		uint(9, uint64(v), 8)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		ctrl(7, len(keys))
		for _, k := range keys {
			mmdbEncode(t, b, k)
			mmdbEncode(t, b, v[k])
		}
	case []any:
		ctrl(11, len(v))
		for _, e := range v {
			mmdbEncode(t, b, e)
		}
	default:
		t.Fatalf("mmdb test writer: unsupported %T", v)
	}
}

// mmdbCountry is the record of a Country database.
func mmdbCountry(iso string) map[string]any {
	return map[string]any{"country": map[string]any{"iso_code": iso}}
}

// MustWriteMMDB writes a database of type dbType mapping each network to its
// record, and returns its path. Networks must not nest.
func MustWriteMMDB(t testing.TB, dbType string, networks map[string]map[string]any) string {
	t.Helper()
	type rec struct {
		kind int // 0 empty, 1 node, 2 data
		v    int
	}
	nodes := [][2]rec{{}}
	var data bytes.Buffer
	for _, cidr := range slices.Sorted(func(yield func(string) bool) {
		for k := range networks {
			if !yield(k) {
				return
			}
		}
	}) {
		p := netip.MustParsePrefix(cidr)
		off := data.Len()
		mmdbEncode(t, &data, networks[cidr])
		a16 := p.Addr().As16()
		nbits := p.Bits()
		if p.Addr().Is4() {
			a16 = [16]byte{}
			a4 := p.Addr().As4()
			copy(a16[12:], a4[:])
			nbits += 96
		}
		node := 0
		for i := 0; i < nbits; i++ {
			bit := (a16[i/8] >> (7 - i%8)) & 1
			if i == nbits-1 {
				nodes[node][bit] = rec{2, off}
				break
			}
			r := nodes[node][bit]
			if r.kind != 1 {
				nodes = append(nodes, [2]rec{})
				r = rec{1, len(nodes) - 1}
				nodes[node][bit] = r
			}
			node = r.v
		}
	}
	n := len(nodes)
	var out bytes.Buffer
	for _, nd := range nodes {
		for _, r := range nd {
			var v int
			switch r.kind {
			case 0:
				v = n
			case 1:
				v = r.v
			case 2:
				v = n + 16 + r.v
			}
			out.Write([]byte{byte(v >> 16), byte(v >> 8), byte(v)})
		}
	}
	out.Write(make([]byte, 16))
	out.Write(data.Bytes())
	out.WriteString("\xAB\xCD\xEFMaxMind.com")
	mmdbEncode(t, &out, map[string]any{
		"binary_format_major_version": mmdbUint16(2),
		"binary_format_minor_version": mmdbUint16(0),
		"build_epoch":                 mmdbUint64(1700000000),
		"database_type":               dbType,
		"description":                 map[string]any{"en": "visits test database"},
		"ip_version":                  mmdbUint16(6),
		"languages":                   []any{"en"},
		"node_count":                  mmdbUint32(n),
		"record_size":                 mmdbUint16(24),
	})
	path := filepath.Join(t.TempDir(), "test.mmdb")
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// testGeoNetworks is the content of the test Country database.
var testGeoNetworks = map[string]map[string]any{
	"81.2.69.0/24":    mmdbCountry("GB"),
	"2.125.160.0/24":  mmdbCountry("DE"),
	"2001:db8:1::/48": mmdbCountry("JP"),
	// Only a registered country, as for some anycast networks.
	"198.51.100.0/24": {"registered_country": map[string]any{"iso_code": "US"}},
}

func TestTestMMDBIsValid(t *testing.T) {
	path := MustWriteMMDB(t, "GeoLite2-Country", testGeoNetworks)
	db, err := maxminddb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Verify(); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	for ip, want := range map[string]string{
		"81.2.69.142":   "GB",
		"2.125.160.216": "DE",
		"2001:db8:1::5": "JP",
		"198.51.100.9":  "US",
		"203.0.113.1":   "",
		"2001:db8:2::1": "",
	} {
		if got := lookupCountry(db, netip.MustParseAddr(ip)); got != want {
			t.Errorf("lookupCountry(%s) = %q, want %q", ip, got, want)
		}
	}
}
