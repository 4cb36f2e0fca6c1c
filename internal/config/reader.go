package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cast"
	"github.com/spf13/viper"
)

// Reader reads typed values from a loaded viper instance and collects every
// validation error, each naming its key. Read all values, then check Err once.
type Reader struct {
	v      *viper.Viper
	prefix string
	errs   []error
}

// NewReader returns a Reader over v whose errors name environment variables
// with prefix (e.g. "PORTAL").
func NewReader(v *viper.Viper, prefix string) *Reader {
	return &Reader{v: v, prefix: prefix}
}

// Viper returns the underlying viper instance.
func (r *Reader) Viper() *viper.Viper { return r.v }

// Fail records a validation error for key.
func (r *Reader) Fail(key, format string, args ...any) {
	r.errs = append(r.errs, &KeyError{Key: key, Env: EnvName(r.prefix, key), Reason: fmt.Sprintf(format, args...)})
}

// Err returns every recorded error joined, or nil.
func (r *Reader) Err() error { return errors.Join(r.errs...) }

// String returns the value of key with surrounding spaces removed.
func (r *Reader) String(key string) string {
	s, err := cast.ToStringE(r.v.Get(key))
	if err != nil {
		r.Fail(key, "not a string: %v", err)
	}
	return strings.TrimSpace(s)
}

// Required returns the value of key, recording an error when it is empty.
func (r *Reader) Required(key string) string {
	s := r.String(key)
	if s == "" {
		r.Fail(key, "is required")
	}
	return s
}

// OneOf returns the lower-cased value of key, recording an error when it is
// not one of allowed.
func (r *Reader) OneOf(key string, allowed ...string) string {
	s := strings.ToLower(r.String(key))
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	r.Fail(key, "%q is not one of %s", s, strings.Join(allowed, ", "))
	return s
}

// Bool returns the value of key as a boolean.
func (r *Reader) Bool(key string) bool {
	b, err := cast.ToBoolE(r.v.Get(key))
	if err != nil {
		r.Fail(key, "%q is not a boolean (true or false)", r.v.Get(key))
	}
	return b
}

// Int returns the value of key, recording an error outside [min, max].
func (r *Reader) Int(key string, min, max int) int {
	raw := r.v.Get(key)
	n, err := cast.ToIntE(raw)
	if s, ok := raw.(string); ok { // cast parses "08" as octal; be strict and decimal
		n, err = strconv.Atoi(strings.TrimSpace(s))
	}
	if err != nil {
		r.Fail(key, "%q is not an integer", fmt.Sprint(raw))
		return 0
	}
	if n < min || n > max {
		r.Fail(key, "%d is out of range %d..%d", n, min, max)
	}
	return n
}

// Duration returns the value of key ("30s", "2m"; a bare number is seconds;
// "90d" is days), recording an error when it does not parse or is outside
// [min, max].
func (r *Reader) Duration(key string, min, max time.Duration) time.Duration {
	raw := r.v.Get(key)
	var d time.Duration
	var err error
	switch x := raw.(type) {
	case time.Duration:
		d = x
	case string:
		x = strings.TrimSpace(x)
		if n, nerr := strconv.ParseFloat(x, 64); nerr == nil {
			d = time.Duration(n * float64(time.Second))
		} else if n, nerr := strconv.ParseUint(strings.TrimSuffix(x, "d"), 10, 16); nerr == nil && strings.HasSuffix(x, "d") {
			d = time.Duration(n) * 24 * time.Hour
		} else {
			d, err = time.ParseDuration(x)
		}
	case int, int64, float64, int32, uint, uint64:
		var n float64
		n, err = cast.ToFloat64E(x)
		d = time.Duration(n * float64(time.Second))
	default:
		err = fmt.Errorf("unexpected type %T", raw)
	}
	if err != nil {
		r.Fail(key, "%q is not a duration (e.g. 30s, 5m, 1h, 90d)", fmt.Sprint(raw))
		return 0
	}
	if d < min || d > max {
		r.Fail(key, "%s is out of range %s..%s", d, min, max)
	}
	return d
}

// StringSlice returns the value of key as a list. A string value (from the
// environment or a file) is split at commas and white space.
func (r *Reader) StringSlice(key string) []string {
	var items []string
	switch x := r.v.Get(key).(type) {
	case nil:
	case string:
		items = strings.FieldsFunc(x, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' })
	default:
		list, err := cast.ToStringSliceE(x)
		if err != nil {
			r.Fail(key, "not a list: %v", err)
			return nil
		}
		for _, s := range list { // a flag given as "a,b" arrives as one element per value already
			items = append(items, strings.FieldsFunc(s, func(c rune) bool { return c == ',' || c == ' ' })...)
		}
	}
	out := items[:0]
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Prefixes returns the value of key as a list of CIDR prefixes. A bare
// address is taken as a single-address prefix (/32 or /128).
func (r *Reader) Prefixes(key string) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range r.StringSlice(key) {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		r.Fail(key, "%q is not a CIDR prefix (e.g. 10.0.0.0/8) or an IP address", s)
	}
	return out
}

// URL returns the value of key as an absolute URL with one of schemes;
// an empty value returns nil without error.
func (r *Reader) URL(key string, schemes ...string) *url.URL {
	s := r.String(key)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		r.Fail(key, "%q is not an absolute URL", redact(s))
		return nil
	}
	for _, sc := range schemes {
		if strings.EqualFold(u.Scheme, sc) {
			return u
		}
	}
	r.Fail(key, "scheme %q is not one of %s", u.Scheme, strings.Join(schemes, ", "))
	return nil
}

// redact hides a password in a URL-looking string so errors never print it.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	if i := strings.Index(s, "@"); i >= 0 {
		return "***" + s[i:]
	}
	return s
}

// ListenAddr returns the value of key as a host:port to listen on.
func (r *Reader) ListenAddr(key string) string {
	s := r.String(key)
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		r.Fail(key, "%q is not host:port (e.g. :8080 or 127.0.0.1:0)", s)
		return s
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		r.Fail(key, "port %q is not a number 0..65535", port)
	}
	if host != "" {
		if _, err := netip.ParseAddr(host); err != nil && !validHostname(host) {
			r.Fail(key, "host %q is neither an IP address nor a host name", host)
		}
	}
	return s
}

func validHostname(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
