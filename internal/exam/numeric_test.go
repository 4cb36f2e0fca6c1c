package exam

import (
	"strings"
	"testing"
)

func TestParseNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // "" when not a number
	}{
		{"2.5", "2.5"}, {"2,5", "2.5"}, {" 2,50 ", "2.5"}, {"-0,5", "-0.5"}, {"−3", "-3"}, {"+7", "7"},
		{".5", "0.5"}, {",5", "0.5"}, {"007", "7"}, {"0", "0"},
		// One separator alone is the decimal one, as ParseNumber reads a
		// key (an answer may also read it as grouping: NumberReadings).
		{"1,25", "1.25"}, {"1.2345", "1.2345"}, {"1234,567", "1234.567"}, {"1,234", "1.234"}, {"1.500", "1.5"}, {"-0,125", "-0.125"},
		// Repeated or first of two: thousands, in groups of three.
		{"1.234.567", "1234567"}, {"1,234,567", "1234567"}, {"1.234,5", "1234.5"}, {"1,234.5", "1234.5"},
		{"1 234 567", "1234567"}, {"1 234,5", "1234.5"}, {"1\u00a0234,5", "1234.5"}, {"12\u202f345", "12345"},
		{"1,5e3", "1500"}, {"2E-2", "0.02"}, {"1e100", "1" + zeros(100)},
		// Not numbers.
		{"", ""}, {"abc", ""}, {"2 kg", ""}, {"1/2", ""}, {"1.23.4", ""}, {"12,34,56", ""}, {"1.234.5,6,7", ""},
		{"1.2.3,4", ""}, {"1 23", ""}, {"1,2,3.4.5", ""}, {"--1", ""}, {"1e", ""}, {"1e101", ""}, {"e5", ""},
		{"1 234.567,8", ""}, {".", ""}, {",", ""}, {"١٢", ""}, {"1e 5", ""}, {"0x10", ""}, {"Inf", ""}, {"NaN", ""},
		{"1" + zeros(70), ""},
	} {
		r, ok := ParseNumber(c.in)
		got := ""
		if ok {
			got = FormatNumber(r)
		}
		if got != c.want {
			t.Errorf("ParseNumber(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func TestNumberKeyTolerance(t *testing.T) {
	for _, c := range []struct {
		key    NumberKey
		answer string
		want   bool
	}{
		{NumberKey{Values: []string{"2.5"}}, "2,5", true},
		{NumberKey{Values: []string{"2.5"}}, "2.50", true},
		{NumberKey{Values: []string{"2.5"}}, "2.51", false},
		// The tolerance is the decimal written, not the double nearest it:
		// 2.4 is exactly 0.1 from 2.5.
		{NumberKey{Values: []string{"2.5"}, Tolerance: 0.1}, "2,4", true},
		{NumberKey{Values: []string{"2.5"}, Tolerance: 0.1}, "2.6", true},
		{NumberKey{Values: []string{"2.5"}, Tolerance: 0.1}, "2.61", false},
		{NumberKey{Values: []string{"-10"}, Tolerance: 5, Mode: ToleranceRelative}, "-10,5", true},
		{NumberKey{Values: []string{"-10"}, Tolerance: 5, Mode: ToleranceRelative}, "-10.6", false},
		{NumberKey{Values: []string{"1", "100"}, Tolerance: 1, Mode: ToleranceRelative}, "99", true},
		{NumberKey{Values: []string{"1", "100"}, Tolerance: 1, Mode: ToleranceRelative}, "1.02", false},
		// 1.500 is 1.5 or 1500: right for either key.
		{NumberKey{Values: []string{"1500"}}, "1.500", true},
		{NumberKey{Values: []string{"1.5"}}, "1.500", true},
		{NumberKey{Values: []string{"1500"}}, "1.50", false},
		{NumberKey{Values: []string{"1500"}}, "1.500,0", true},
		{NumberKey{Values: []string{"1500"}}, "1.5000", false},
		{NumberKey{Values: []string{"3"}}, "tiga", false},
		{NumberKey{Values: []string{"3"}}, "", false},
	} {
		if got := c.key.Matches(c.answer); got != c.want {
			t.Errorf("%+v.Matches(%q) = %v, want %v", c.key, c.answer, got, c.want)
		}
	}
}

func TestNumberKeyValidate(t *testing.T) {
	k := NumberKey{Values: []string{"2,5", "1.234,0", "1.024"}}
	if err := k.validate(); err != nil || k.Values[0] != "2.5" || k.Values[1] != "1234" || k.Values[2] != "1.024" {
		t.Fatalf("validate: %v, values %q", err, k.Values)
	}
	for _, bad := range []NumberKey{
		{}, {Values: []string{"dua"}}, {Values: []string{"1"}, Tolerance: -1},
		{Values: []string{"1"}, Tolerance: 101, Mode: ToleranceRelative}, {Values: []string{"1"}, Mode: "percent"},
	} {
		if err := bad.validate(); err == nil {
			t.Errorf("validate(%+v) accepted it", bad)
		}
	}
}

func TestNumberReadings(t *testing.T) {
	for in, want := range map[string][]string{
		"1.500": {"1.5", "1500"}, "2,250": {"2.25", "2250"}, "-1,000": {"-1", "-1000"}, "123.456": {"123.456", "123456"},
		"1234.567": {"1234.567"}, "0.5": {"0.5"}, "1.234.567": {"1234567"}, "1.500e2": {"150", "150000"}, "0,500": {"0.5"}, "x": nil,
	} {
		var got []string
		for _, r := range NumberReadings(in) {
			got = append(got, FormatNumber(r))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("NumberReadings(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNumberKeyAgainstMoodle checks the absolute tolerance against the
// example of Moodle's own help for its numerical question (moodle/moodle,
// lang/en/help/quiz/numerical.html, commit 361f649: "if the answer is 30
// with an error of 5, then any number between 25 and 35 will be accepted"),
// both ends included, as Moodle's qtype_numerical compares.
func TestNumberKeyAgainstMoodle(t *testing.T) {
	k := NumberKey{Values: []string{"30"}, Tolerance: 5}
	for answer, want := range map[string]bool{"25": true, "35": true, "30": true, "24,99": false, "35.01": false, "27,5": true} {
		if got := k.Matches(answer); got != want {
			t.Errorf("30 ± 5: Matches(%q) = %v, want %v", answer, got, want)
		}
	}
}
