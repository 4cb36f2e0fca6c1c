package ordering

import (
	"errors"
	"testing"
)

func TestNormalizeNumber(t *testing.T) {
	for _, c := range []struct{ in, region, want string }{
		{"081234567890", "ID", "6281234567890"},
		{"0812-3456-7890", "ID", "6281234567890"},
		{"+62 812 3456 7890", "ID", "6281234567890"},
		{"6281234567890", "ID", "6281234567890"},
		{"6281234567890@c.us", "ID", "6281234567890"},
		{"+6591234567", "ID", "6591234567"},
		{"6591234567", "ID", "6591234567"},
		{"0412 345 678", "AU", "61412345678"},
	} {
		got, err := NormalizeNumber(c.in, c.region)
		if err != nil || got != c.want {
			t.Errorf("NormalizeNumber(%q, %s) = %q, %v; want %q", c.in, c.region, got, err, c.want)
		}
	}
	for _, in := range []string{"", "12", "not a number", "0000000000", "+999123456789", "081234567890123456789012345678901"} {
		if got, err := NormalizeNumber(in, "ID"); !errors.Is(err, ErrInvalidNumber) {
			t.Errorf("NormalizeNumber(%q) = %q, %v; want ErrInvalidNumber", in, got, err)
		}
	}
}
