package qr

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
)

// Default colours: black modules on white, the combination every reader
// handles best.
var (
	// DefaultForeground is the module colour when none is given: black.
	DefaultForeground = color.RGBA{R: 0, G: 0, B: 0, A: 255}
	// DefaultBackground is the ground colour when none is given: white.
	DefaultBackground = color.RGBA{R: 255, G: 255, B: 255, A: 255}
)

// MinContrast is the lowest WCAG contrast ratio accepted between foreground
// and background.
//
// Readers binarise the camera image on brightness, so what matters is the
// luminance gap between dark and light modules, under uneven light and cheap
// sensors. 3:1 is WCAG's threshold for meaningful graphics (SC 1.4.11); it
// admits the usual brand colours (pure red on white is 4:1, navy on white
// about 14:1) and refuses pairs such as mid-grey on white or yellow on white
// whose codes fail on many phones. ISO/IEC 18004 grades symbol contrast on the
// same reflectance difference.
const MinContrast = 3.0

// ParseRGB parses a colour of the exact form rgb(r,g,b), each component a
// decimal integer from 0 to 255; spaces are allowed around the components and
// the whole. The result is opaque. Errors are *ValidationError on the field
// "color"; callers may set Field to the API field they parsed.
func ParseRGB(s string) (color.RGBA, error) {
	bad := func() (color.RGBA, error) {
		return color.RGBA{}, invalidf("color", "color %q must be of the form rgb(r,g,b) with each value from 0 to 255", truncate(s, 40))
	}
	t := strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(t, "rgb")
	if !ok {
		return bad()
	}
	rest = strings.TrimLeft(rest, " ")
	inner, ok := strings.CutPrefix(rest, "(")
	if !ok {
		return bad()
	}
	inner, ok = strings.CutSuffix(inner, ")")
	if !ok {
		return bad()
	}
	parts := strings.Split(inner, ",")
	if len(parts) != 3 {
		return bad()
	}
	var v [3]uint8
	for i, p := range parts {
		p = strings.Trim(p, " ")
		if p == "" || len(p) > 3 {
			return bad()
		}
		for j := 0; j < len(p); j++ {
			if p[j] < '0' || p[j] > '9' {
				return bad()
			}
		}
		n, err := strconv.Atoi(p)
		if err != nil || n > 255 {
			return bad()
		}
		v[i] = uint8(n)
	}
	return color.RGBA{R: v[0], G: v[1], B: v[2], A: 255}, nil
}

// ParseColors parses the API's foreground and background fields with
// ParseRGB, applying DefaultForeground and DefaultBackground to empty ones,
// and checks the pair with CheckContrast. Errors name the field at fault.
func ParseColors(foreground, background string) (fg, bg color.RGBA, err error) {
	fg, bg = DefaultForeground, DefaultBackground
	if strings.TrimSpace(foreground) != "" {
		if fg, err = ParseRGB(foreground); err != nil {
			return fg, bg, withField(err, "foreground")
		}
	}
	if strings.TrimSpace(background) != "" {
		if bg, err = ParseRGB(background); err != nil {
			return fg, bg, withField(err, "background")
		}
	}
	return fg, bg, CheckContrast(fg, bg)
}

func withField(err error, field string) error {
	if ve, ok := err.(*ValidationError); ok {
		c := *ve
		c.Field = field
		c.Message = strings.Replace(c.Message, "color", field, 1)
		return &c
	}
	return err
}

// CheckContrast refuses a foreground and background that would scan badly:
// a WCAG contrast ratio below MinContrast, or a foreground lighter than the
// background. Inverted codes (light modules on a dark ground) are allowed by
// the QR standard since 2015 but many phone readers still fail on them, so
// they are refused rather than risked. Alpha is ignored. Errors are
// *ValidationError on the field "foreground".
func CheckContrast(fg, bg color.RGBA) error {
	lf, lb := luminance(fg), luminance(bg)
	if r := ContrastRatio(fg, bg); r < MinContrast {
		return invalidf("foreground", "foreground %s and background %s are too close to scan (contrast %.2f:1, at least %g:1 is needed)",
			formatRGB(fg), formatRGB(bg), r, MinContrast)
	}
	if lf > lb {
		return invalidf("foreground", "foreground %s must be darker than background %s: inverted codes do not scan on many phones",
			formatRGB(fg), formatRGB(bg))
	}
	return nil
}

// ContrastRatio returns the WCAG 2 contrast ratio of two colours, from 1
// (identical luminance) to 21 (black and white).
func ContrastRatio(a, b color.RGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is the WCAG relative luminance of c's sRGB components.
func luminance(c color.RGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

func formatRGB(c color.RGBA) string { return fmt.Sprintf("rgb(%d,%d,%d)", c.R, c.G, c.B) }

func hexRGB(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
