package exam

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Numbers as students and teachers type them (docs/exam-content.md,
// "Numbers"): a numeric answer is compared as a number, whichever decimal
// separator it was written with.
//
//   - Either "." or "," is the decimal separator: 2.5 and 2,5 are the same.
//   - A separator that appears more than once, or before the other one, groups
//     thousands, and then every group after the first has three digits:
//     1.234.567 and 1,234,567 are 1234567; 1.234,5 and 1,234.5 are 1234.5.
//     A space (also a no-break or thin space) groups thousands in the same
//     way: 1 234 567,5.
//   - A separator that appears once, alone, is the decimal separator (1,25
//     and 1.25 are one and a quarter), except that one followed by exactly
//     three digits may also group thousands: 1.500 is read both as 1.5 and
//     as 1500, and an answer is right when either reading is. A key is
//     read the first way (ParseNumber).
//   - A sign (+, - or the minus sign −) may lead, an exponent (e or E, then
//     an integer) may follow: 1,5e3 is 1500.
//   - Nothing else: units, fractions (1/2) and words are not numbers.

// maxNumberLen bounds a number's text, so that a pasted page is not parsed
// digit by digit, and maxExponent its exponent, so that 1e999999999 does not
// make a number of a billion digits.
const (
	maxNumberLen = 64
	maxExponent  = 100
)

// ParseNumber reads s as a number by the rules above, a lone separator
// always as the decimal one (1.500 is 1.5), as a key is read: the files
// keys come from (Moodle, QTI, the API) write decimals so, and the editor
// shows a key as it was kept. False when s is not a number.
func ParseNumber(s string) (*big.Rat, bool) {
	rs := NumberReadings(s)
	if len(rs) == 0 {
		return nil, false
	}
	return rs[0], true
}

// NumberReadings returns what s can be read as by the rules above: nothing
// when it is not a number, two numbers when a lone separator is followed by
// three digits (1.500: 1.5 and 1500), else one.
func NumberReadings(s string) []*big.Rat {
	s = strings.TrimFunc(s, unicode.IsSpace)
	if s == "" || len(s) > maxNumberLen {
		return nil
	}
	sign := ""
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "-"):
		sign, s = "-", s[1:]
	case strings.HasPrefix(s, "−"):
		sign, s = "-", strings.TrimPrefix(s, "−")
	}
	exp := ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s, exp = s[:i], s[i+1:]
		e, err := strconv.Atoi(exp)
		if err != nil || e < -maxExponent || e > maxExponent || strings.HasPrefix(exp, " ") {
			return nil
		}
		exp = "e" + exp
	}
	digits, ok := plainDecimal(s)
	if !ok {
		return nil
	}
	readings := []string{digits}
	if i := strings.IndexAny(s, ".,"); i >= 1 && i <= 3 && s[0] != '0' && len(s)-i-1 == 3 && strings.Count(s, ".")+strings.Count(s, ",") == 1 &&
		allDigits(s[:i]) && allDigits(s[i+1:]) {
		readings = append(readings, s[:i]+s[i+1:])
	}
	var out []*big.Rat
	for _, d := range readings {
		if r, ok := new(big.Rat).SetString(sign + d + exp); ok {
			out = append(out, r)
		}
	}
	return out
}

// plainDecimal is s (unsigned, no exponent) with its grouping removed and its
// decimal separator a ".": "1.234,5" is "1234.5".
func plainDecimal(s string) (string, bool) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009' {
			return ' '
		}
		return r
	}, s)
	dots, commas := strings.Count(s, "."), strings.Count(s, ",")
	decimal := byte(0)
	switch {
	case dots > 0 && commas > 0:
		decimal = '.'
		if strings.LastIndex(s, ",") > strings.LastIndex(s, ".") {
			decimal = ','
		}
		if strings.Count(s, string(decimal)) != 1 {
			return "", false
		}
	case dots == 1:
		decimal = '.'
	case commas == 1:
		decimal = ','
	}
	intPart, frac := s, ""
	if decimal != 0 {
		i := strings.LastIndexByte(s, decimal)
		intPart, frac = s[:i], s[i+1:]
	}
	if intPart == "" && frac == "" || !allDigits(frac) {
		return "", false
	}
	intDigits, ok := ungroup(intPart)
	if !ok {
		return "", false
	}
	if intDigits == "" {
		intDigits = "0"
	}
	if frac == "" {
		return intDigits, true
	}
	return intDigits + "." + frac, true
}

// ungroup removes the thousands separators of an integer part, all of one
// kind (".", "," or " "), each group after the first three digits long.
func ungroup(s string) (string, bool) {
	sep := strings.IndexAny(s, "., ")
	if sep < 0 {
		return s, allDigits(s)
	}
	groups := strings.Split(s, s[sep:sep+1])
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return "", false
	}
	for i, g := range groups {
		if !allDigits(g) || i > 0 && len(g) != 3 {
			return "", false
		}
	}
	return strings.Join(groups, ""), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatNumber writes r as the shortest plain decimal ("2.5", "-1234",
// "0.001"), the form a numeric key is kept in. r must have a finite decimal
// form, as every number ParseNumber returns has.
func FormatNumber(r *big.Rat) string {
	for prec := 0; prec <= 2*maxExponent+maxNumberLen; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return r.FloatString(2*maxExponent + maxNumberLen)
}

// Tolerance modes of a numeric answer.
const (
	// ToleranceAbsolute (the default, ""): an answer within Tolerance of a
	// key, either side, is right.
	ToleranceAbsolute = ""
	// ToleranceRelative: an answer within Tolerance percent of a key is
	// right.
	ToleranceRelative = "relative"
)

// NumberKey is how a numeric answer is checked: its accepted values and how
// far from one an answer may be.
type NumberKey struct {
	Values    []string
	Tolerance float64
	Mode      string
}

// validate checks the key's values (numbers by ParseNumber's rules, kept in
// FormatNumber's form) and its tolerance.
func (k *NumberKey) validate() error {
	if len(k.Values) == 0 {
		return fmt.Errorf("a numeric answer needs at least one accepted number")
	}
	for i, v := range k.Values {
		r, ok := ParseNumber(v)
		if !ok {
			return fmt.Errorf("answer %q is not a number", v)
		}
		k.Values[i] = FormatNumber(r)
	}
	switch {
	case k.Mode != ToleranceAbsolute && k.Mode != ToleranceRelative:
		return fmt.Errorf(`tolerance_mode must be "relative" (percent) or absent (absolute)`)
	case k.Tolerance < 0 || k.Tolerance > 1e9 || k.Tolerance != k.Tolerance:
		return fmt.Errorf("tolerance must be a number from 0")
	case k.Mode == ToleranceRelative && k.Tolerance > 100:
		return fmt.Errorf("a relative tolerance is a percentage, from 0 to 100")
	}
	return nil
}

// Matches reports whether answer, read by the rules above (either reading,
// where it has two), is within the tolerance of one of the key's values.
func (k NumberKey) Matches(answer string) bool {
	readings := NumberReadings(answer)
	if len(readings) == 0 {
		return false
	}
	tol := new(big.Rat)
	if k.Tolerance > 0 {
		// The tolerance as written in decimal (0.1, not the binary double
		// nearest to it), so that 2.4 is within 0.1 of 2.5.
		tol.SetString(strconv.FormatFloat(k.Tolerance, 'g', -1, 64))
	}
	for _, v := range k.Values {
		want, ok := ParseNumber(v)
		if !ok {
			continue
		}
		limit := tol
		if k.Mode == ToleranceRelative {
			limit = new(big.Rat).Mul(tol, new(big.Rat).Abs(want))
			limit.Quo(limit, big.NewRat(100, 1))
		}
		for _, given := range readings {
			diff := new(big.Rat).Sub(given, want)
			if diff.Abs(diff).Cmp(limit) <= 0 {
				return true
			}
		}
	}
	return false
}
