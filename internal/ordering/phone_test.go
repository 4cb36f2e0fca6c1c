package ordering

import (
	"errors"
	"strings"
	"testing"
	"unicode"
)

func TestNormalizeNumber(t *testing.T) {
	for _, c := range []struct{ in, region, want string }{
		{"081234567890", "ID", "6281234567890"},
		{"0812-3456-7890", "ID", "6281234567890"},
		{"0812.3456.7890", "ID", "6281234567890"},
		{"(0812) 3456 7890", "ID", "6281234567890"},
		{"0812\u00a03456\u00a07890", "ID", "6281234567890"}, // no-break spaces, as pasted
		{"+62 812 3456 7890", "ID", "6281234567890"},
		{"+62-812-3456-7890", "ID", "6281234567890"},
		{" +62 (0) 812 3456 7890 ", "ID", "6281234567890"},
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
	for _, in := range append([]string{"", "12", "not a number", "0000000000", "+999123456789", "081234567890123456789012345678901"},
		notNumbers...) {
		if got, err := NormalizeNumber(in, "ID"); !errors.Is(err, ErrInvalidNumber) {
			t.Errorf("NormalizeNumber(%q) = %q, %v; want ErrInvalidNumber", in, got, err)
		}
	}
}

// notNumbers are inputs that the phone-number library reads as numbers
// (letters as keypad digits, extensions, other scripts' digits, a tel: URI,
// text around the digits) and that are not messenger numbers: each would
// stand for another number than the one the user sees, or for none.
var notNumbers = []string{
	"62812abc345",              // keypad letters: 62812222345
	"0812-FOOD-BAR",            // a vanity number
	"0812-3456-789O",           // the letter O for a zero
	"081234567890abc",          // letters after the number
	"abc081234567890",          // letters before it
	"+62 812 3456 7890 ext 12", // an extension
	"0812 3456 7890 x12",       // an extension
	"tel:+62-812-3456-7890",    // a URI
	"62812abc345@c.us",         // a chat id with letters
	"\uff10\uff18\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19\uff10", // full-width digits
	"\u0660\u0668\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660", // Arabic-Indic digits
	"\u06f0\u06f8\u06f1\u06f2\u06f3\u06f4\u06f5\u06f6\u06f7\u06f8\u06f9\u06f0", // Persian digits
	"\u0966\u096e\u0967\u0968\u0969\u096a\u096b\u096c\u096d\u096e\u096f\u0966", // Devanagari digits
	"\uff10812-3456-7890", // one full-width digit among ASCII ones
	"0812/3456/7890",      // a separator other than space - . ( )
	"0812\u200b34567890",  // an invisible character
	"62+81234567890",      // a + that does not lead
	"++6281234567890",     // two of them
}

// FuzzNormalizeNumber: a number NormalizeNumber accepts is made of ASCII
// digits, spaces, "-", ".", "(", ")" and a leading "+" (before any "@"
// suffix); its result is 8 to 15 ASCII digits and normalises to itself.
func FuzzNormalizeNumber(f *testing.F) {
	for _, s := range append([]string{"081234567890", "0812-3456-7890", "+62 812 3456 7890", "6281234567890@c.us", "(0812) 3456.7890",
		"0412 345 678", "+6591234567", "", "+", "@", "0", "62812abc345@"}, notNumbers...) {
		f.Add(s, "ID")
	}
	f.Add("0412 345 678", "AU")
	f.Add("+1 (800) FLOWERS", "US")
	f.Fuzz(func(t *testing.T, in, region string) {
		got, err := NormalizeNumber(in, region)
		if err != nil {
			if !errors.Is(err, ErrInvalidNumber) {
				t.Fatalf("NormalizeNumber(%q, %q): %v, want ErrInvalidNumber", in, region, err)
			}
			return
		}
		typed, _, _ := strings.Cut(strings.TrimSpace(in), "@")
		for i, r := range typed {
			if !('0' <= r && r <= '9' || r == '+' && i == 0 || r == '-' || r == '.' || r == '(' || r == ')' || unicode.IsSpace(r)) {
				t.Fatalf("NormalizeNumber(%q, %q) = %q, want ErrInvalidNumber: %q is not a digit 0-9 nor a separator", in, region, got, r)
			}
		}
		if len(got) < 8 || len(got) > 15 || strings.Trim(got, "0123456789") != "" {
			t.Fatalf("NormalizeNumber(%q, %q) = %q, not 8 to 15 ASCII digits", in, region, got)
		}
		if again, err := NormalizeNumber(got, region); err != nil || again != got {
			t.Fatalf("NormalizeNumber(%q, %q) = %q, which normalises to %q, %v", in, region, got, again, err)
		}
	})
}
