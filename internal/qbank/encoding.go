package qbank

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// SaveAsUTF8 tells an operator how to give the portal a file it can read.
const SaveAsUTF8 = "save the file as UTF-8 (Notepad, LibreOffice and most editors: Save As, Encoding UTF-8; Moodle's own export always is)"

// UTF8Reader returns r read as UTF-8: decoded from UTF-16 when it starts
// with a UTF-16 byte-order mark (little or big endian; Windows'
// "Unicode" files), else r's bytes as they are (the XML decoders refuse
// what is not UTF-8). utf16 reports which.
func UTF8Reader(r io.Reader) (out io.Reader, utf16 bool) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	var enc encoding.Encoding
	switch {
	case bytes.Equal(head, []byte{0xFF, 0xFE}):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	case bytes.Equal(head, []byte{0xFE, 0xFF}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	default:
		return br, false
	}
	return transform.NewReader(br, enc.NewDecoder()), true
}

// CharsetReader is an xml.Decoder's CharsetReader for a document read
// through UTF8Reader: the XML declaration may name UTF-8 (or US-ASCII),
// and UTF-16 when the bytes were decoded from it; any other encoding is
// refused with what to do.
func CharsetReader(utf16 bool) func(label string, in io.Reader) (io.Reader, error) {
	return func(label string, in io.Reader) (io.Reader, error) {
		l := strings.ToLower(strings.TrimSpace(label))
		switch {
		case l == "utf-8" || l == "utf8" || l == "us-ascii":
			return in, nil
		case utf16 && strings.HasPrefix(l, "utf-16"):
			return in, nil // decoded already
		}
		return nil, fmt.Errorf("the file is encoded in %s, which the portal does not read: %s", clip(label, 40), SaveAsUTF8)
	}
}

// EncodingError is err explained when it is encoding/xml's refusal of
// bytes that are not UTF-8, else err.
func EncodingError(err error) error {
	if err != nil && strings.Contains(err.Error(), "invalid UTF-8") {
		return fmt.Errorf("the file is neither UTF-8 nor UTF-16 with a byte-order mark (%v): %s", err, SaveAsUTF8)
	}
	return err
}
