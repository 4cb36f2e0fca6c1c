package testkit

import (
	"bytes"
	_ "embed" // the audio fixture
	"image"
	"image/color"
	"image/png"
)

// ToneMP3 is a two-second 440 Hz tone, MPEG-2 Layer III at 32 kbit/s
// mono (testdata/README.md says how it was made): a real audio file that
// browsers decode, with a duration.
//
//go:embed testdata/tone-2s.mp3
var ToneMP3 []byte

// PNG returns a w×h PNG whose pixels depend on seed, so that different
// seeds give different files (and SHA-256s).
func PNG(w, h int, seed uint8) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x*7) + seed, uint8(y*5) ^ seed, seed, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// ChartPNG returns a w×h PNG of a bar chart of values (0 to 100), blue
// bars on white: an image that looks like one in an exam.
func ChartPNG(w, h int, values ...int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.White)
		}
	}
	slot := w / max(len(values), 1)
	for i, v := range values {
		top := h - h*v/100
		for y := top; y < h; y++ {
			for x := i*slot + slot/5; x < (i+1)*slot-slot/5; x++ {
				img.Set(x, y, color.RGBA{37, 99, 235, 255})
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}
