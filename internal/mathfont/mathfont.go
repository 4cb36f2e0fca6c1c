// Package mathfont is the math font that exam content's formulas are drawn
// with: STIX Two Math (SIL Open Font License 1.1, LICENSE beside it; npm
// @fontsource/stix-two-math 5.3.0), an OpenType MATH font that Chromium and
// Firefox use for MathML. Every page that shows exam content (the lab
// server's student page, the console's exam editor) serves it from its
// binary, so a formula looks the same on every computer, whatever fonts the
// computer has.
package mathfont

import (
	"embed"
	"io/fs"
)

// File is the font's file name in FS; pages declare it in CSS as
//
//	@font-face { font-family: "STIX Two Math"; src: url("stix-two-math.woff2") format("woff2"); }
const File = "stix-two-math.woff2"

//go:embed stix-two-math.woff2
var files embed.FS

// FS holds File at its root.
var FS fs.FS = files
