package qr

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strconv"

	qrcode "github.com/skip2/go-qrcode"
)

// Rendering bounds.
const (
	// QuietZone is the light margin around the symbol, in modules, as
	// ISO/IEC 18004 requires.
	QuietZone = 4
	// DefaultSize is the image width and height, in pixels, when
	// Options.Size is zero.
	DefaultSize = 512
	// MinSize is the smallest Options.Size accepted, in pixels.
	MinSize = 64
	// MaxSize is the largest Options.Size accepted, in pixels.
	MaxSize = 2048

	// logoDivisor sets the logo's box to at most a fifth (20%) of the
	// symbol's width, about 4% of its area plus a one-module pad: far
	// under the 30% of codewords level H recovers.
	logoDivisor = 5
	// svgLogoPixels bounds the raster embedded in an SVG for the logo.
	svgLogoPixels = 256
)

// Options controls how a QR code is drawn. The zero value draws black on
// white at DefaultSize without a logo.
type Options struct {
	// Foreground and Background are the module and ground colours; a
	// colour with zero alpha means the default (DefaultForeground,
	// DefaultBackground). Alpha is otherwise ignored: codes are opaque.
	// The pair must pass CheckContrast.
	Foreground, Background color.RGBA
	// Logo, when not nil, is drawn at the centre on a pad of the
	// background colour, and the code uses error correction level H.
	Logo image.Image
	// Size is the width and height of the image in pixels, from MinSize
	// to MaxSize; zero means DefaultSize. Modules are a whole number of
	// pixels, so the quiet zone absorbs the remainder; a symbol with more
	// modules than Size pixels is drawn one pixel per module, larger than
	// Size.
	Size int
}

func (o Options) normalize() (Options, error) {
	if o.Foreground.A == 0 {
		o.Foreground = DefaultForeground
	}
	if o.Background.A == 0 {
		o.Background = DefaultBackground
	}
	o.Foreground.A, o.Background.A = 255, 255
	if o.Size == 0 {
		o.Size = DefaultSize
	}
	if o.Size < MinSize || o.Size > MaxSize {
		return o, invalidf("size", "size must be from %d to %d pixels", MinSize, MaxSize)
	}
	if err := CheckContrast(o.Foreground, o.Background); err != nil {
		return o, err
	}
	if o.Logo != nil && o.Logo.Bounds().Empty() {
		return o, invalid("logo", "logo has no pixels")
	}
	return o, nil
}

// Fits reports whether payload fits in a QR code at the error correction
// level it would be drawn with: M, or H when withLogo. The error is a
// *ValidationError on the field "data" wrapping ErrDataTooLong.
func Fits(payload string, withLogo bool) error {
	if len(payload) > MaxTextLength {
		return errTooLong(withLogo)
	}
	if _, err := qrcode.New(payload, level(withLogo)); err != nil {
		return errTooLong(withLogo)
	}
	return nil
}

func level(withLogo bool) qrcode.RecoveryLevel {
	if withLogo {
		return qrcode.Highest
	}
	return qrcode.Medium
}

func errTooLong(withLogo bool) error {
	msg := ErrDataTooLong.Error()
	if withLogo {
		msg += " with a logo (a logo needs the highest error correction, which holds less data)"
	}
	return &ValidationError{Field: "data", Message: msg, cause: ErrDataTooLong}
}

// symbol is an encoded QR code: n×n dark (true) or light modules, without
// the quiet zone, and the logo's place when it has one.
type symbol struct {
	modules [][]bool
	n       int
	// pad is the square of modules, in symbol coordinates, that the logo's
	// background-coloured pad covers; inner is the side, in modules, of the
	// box the logo is fitted into (the pad less a one-module margin).
	pad   image.Rectangle
	inner int
}

func encodeSymbol(payload string, withLogo bool) (s *symbol, err error) {
	if payload == "" {
		return nil, invalid("data", "data is required")
	}
	if len(payload) > MaxTextLength {
		return nil, errTooLong(withLogo)
	}
	q, err := qrcode.New(payload, level(withLogo))
	if err != nil {
		return nil, errTooLong(withLogo)
	}
	q.DisableBorder = true
	defer func() {
		// The library panics only on an internal bug; report it as an
		// internal error rather than crash the server.
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("qr: encode %d bytes: %v", len(payload), r)
		}
	}()
	bm := q.Bitmap()
	n := len(bm)
	if n == 0 || len(bm[0]) != n {
		return nil, fmt.Errorf("qr: encode %d bytes: unexpected %d-module matrix", len(payload), n)
	}
	s = &symbol{modules: bm, n: n}
	if withLogo {
		// n is odd (17+4×version); an odd pad centres on the module grid.
		inner := n / logoDivisor
		if inner%2 == 0 {
			inner--
		}
		side := inner + 2
		p0 := (n - side) / 2
		s.pad = image.Rect(p0, p0, p0+side, p0+side)
		s.inner = inner
	}
	return s, nil
}

// Image draws payload as a QR code. PNG encodes its result; it is exported
// for callers that compose the code into a larger picture.
func Image(payload string, o Options) (image.Image, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	sym, err := encodeSymbol(payload, o.Logo != nil)
	if err != nil {
		return nil, err
	}
	total := sym.n + 2*QuietZone
	scale := max(1, o.Size/total)
	side := max(o.Size, total*scale)
	off := (side-total*scale)/2 + QuietZone*scale // pixel of module (0,0)
	rect := image.Rect(0, 0, side, side)

	if o.Logo == nil {
		// Two colours: a paletted image keeps the PNG small and fast.
		img := image.NewPaletted(rect, color.Palette{o.Background, o.Foreground})
		drawModules(img.Pix, img.Stride, 1, []byte{1}, sym, scale, off)
		return img, nil
	}

	img := image.NewRGBA(rect)
	draw.Draw(img, rect, image.NewUniform(o.Background), image.Point{}, draw.Src)
	fg := []byte{o.Foreground.R, o.Foreground.G, o.Foreground.B, 255}
	drawModules(img.Pix, img.Stride, 4, fg, sym, scale, off)

	padRect := image.Rect(off+sym.pad.Min.X*scale, off+sym.pad.Min.Y*scale,
		off+sym.pad.Max.X*scale, off+sym.pad.Max.Y*scale)
	draw.Draw(img, padRect, image.NewUniform(o.Background), image.Point{}, draw.Src)

	dw, dh := fit(o.Logo.Bounds(), sym.inner*scale)
	logo := resample(o.Logo, dw, dh, o.Background)
	at := image.Pt(padRect.Min.X+(padRect.Dx()-dw)/2, padRect.Min.Y+(padRect.Dy()-dh)/2)
	draw.Draw(img, image.Rectangle{Min: at, Max: at.Add(image.Pt(dw, dh))}, logo, image.Point{}, draw.Src)
	return img, nil
}

// drawModules sets the pixels of every dark module to px (bpp bytes) in a
// zeroed or background-filled pixel buffer.
func drawModules(pix []byte, stride, bpp int, px []byte, sym *symbol, scale, off int) {
	for y, row := range sym.modules {
		top := (off + y*scale) * stride
		line := pix[top : top+stride]
		for x, dark := range row {
			if !dark {
				continue
			}
			start := (off + x*scale) * bpp
			for i := 0; i < scale*bpp; i += bpp {
				copy(line[start+i:], px)
			}
		}
		for k := 1; k < scale; k++ {
			copy(pix[top+k*stride:top+(k+1)*stride], line)
		}
	}
}

// fit returns the size of b scaled, keeping its aspect ratio, to fit a
// box×box square.
func fit(b image.Rectangle, box int) (w, h int) {
	sw, sh := b.Dx(), b.Dy()
	if sw >= sh {
		return box, max(1, (box*sh+sw/2)/sw)
	}
	return max(1, (box*sw+sh/2)/sh), box
}

// resample scales src to dw×dh by averaging the source pixels each
// destination pixel covers (nearest pixel when enlarging), composited over
// bg so the result is opaque.
func resample(src image.Image, dw, dh int, bg color.RGBA) *image.RGBA {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	s := image.NewRGBA(image.Rect(0, 0, sw, sh))
	draw.Draw(s, s.Bounds(), src, b.Min, draw.Src) // premultiplied RGBA
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		y0 := y * sh / dh
		y1 := max(y0+1, ((y+1)*sh+dh-1)/dh)
		for x := range dw {
			x0 := x * sw / dw
			x1 := max(x0+1, ((x+1)*sw+dw-1)/dw)
			var r, g, bl, a, n uint32
			for sy := y0; sy < y1; sy++ {
				row := s.Pix[sy*s.Stride:]
				for sx := x0; sx < x1; sx++ {
					p := row[sx*4 : sx*4+4]
					r += uint32(p[0])
					g += uint32(p[1])
					bl += uint32(p[2])
					a += uint32(p[3])
					n++
				}
			}
			r, g, bl, a = (r+n/2)/n, (g+n/2)/n, (bl+n/2)/n, (a+n/2)/n
			inv := 255 - a
			o := dst.Pix[y*dst.Stride+x*4:]
			o[0] = uint8(min(255, r+(uint32(bg.R)*inv+127)/255))
			o[1] = uint8(min(255, g+(uint32(bg.G)*inv+127)/255))
			o[2] = uint8(min(255, bl+(uint32(bg.B)*inv+127)/255))
			o[3] = 255
		}
	}
	return dst
}

// PNG draws payload as a QR code and encodes it as PNG: modules in
// o.Foreground on o.Background with a quiet zone of QuietZone modules, at
// error correction level M, or H with the logo drawn at the centre.
func PNG(payload string, o Options) ([]byte, error) {
	img, err := Image(payload, o)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("qr: encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG draws payload as a QR code in SVG: a background rectangle and one path
// of module rectangles, in a viewBox of one unit per module with the quiet
// zone included, sized o.Size pixels. A logo is embedded as a PNG data URI
// (re-encoded here, at most 256 pixels a side) on a background-coloured pad.
// Nothing user-provided is written into the document except the colours,
// which are formatted here.
func SVG(payload string, o Options) ([]byte, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	sym, err := encodeSymbol(payload, o.Logo != nil)
	if err != nil {
		return nil, err
	}
	total := sym.n + 2*QuietZone
	var b bytes.Buffer
	b.Grow(64 * sym.n)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg"`)
	if o.Logo != nil {
		b.WriteString(` xmlns:xlink="http://www.w3.org/1999/xlink"`)
	}
	fmt.Fprintf(&b, ` version="1.1" viewBox="0 0 %d %d" width="%d" height="%d" shape-rendering="crispEdges">`,
		total, total, o.Size, o.Size)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="%s"/>`, total, total, hexRGB(o.Background))
	fmt.Fprintf(&b, `<path fill="%s" d="`, hexRGB(o.Foreground))
	for y, row := range sym.modules {
		for x := 0; x < sym.n; {
			if !row[x] {
				x++
				continue
			}
			x0 := x
			for x < sym.n && row[x] {
				x++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x0+QuietZone, y+QuietZone, x-x0, x-x0)
		}
	}
	b.WriteString(`"/>`)
	if o.Logo != nil {
		p := sym.pad.Add(image.Pt(QuietZone, QuietZone))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`,
			p.Min.X, p.Min.Y, p.Dx(), p.Dy(), hexRGB(o.Background))

		lb := o.Logo.Bounds()
		pw, ph := fit(lb, min(svgLogoPixels, max(lb.Dx(), lb.Dy())))
		var raster bytes.Buffer
		if err := png.Encode(&raster, resample(o.Logo, pw, ph, o.Background)); err != nil {
			return nil, fmt.Errorf("qr: encode svg logo: %w", err)
		}
		// The logo's box in module units, centred on the pad.
		w, h := float64(sym.inner), float64(sym.inner)
		if pw >= ph {
			h = w * float64(ph) / float64(pw)
		} else {
			w = h * float64(pw) / float64(ph)
		}
		cx, cy := float64(p.Min.X)+float64(p.Dx())/2, float64(p.Min.Y)+float64(p.Dy())/2
		fmt.Fprintf(&b, `<image x="%s" y="%s" width="%s" height="%s" preserveAspectRatio="none" xlink:href="data:image/png;base64,`,
			num(cx-w/2), num(cy-h/2), num(w), num(h))
		enc := base64.NewEncoder(base64.StdEncoding, &b)
		_, _ = enc.Write(raster.Bytes()) // writes to a bytes.Buffer cannot fail
		_ = enc.Close()
		b.WriteString(`"/>`)
	}
	b.WriteString("</svg>\n")
	return b.Bytes(), nil
}

// num formats v with at most three decimals.
func num(v float64) string {
	return strconv.FormatFloat(float64(int64(v*1000+0.5))/1000, 'f', -1, 64)
}
