// Package formats picks a question-bank format by name: it dispatches an
// import or an export to package moodle, qti or sheet, and tells the
// formats apart by their bytes.
package formats

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync/atomic"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/qbank/moodle"
	"github.com/seedhq/portal/internal/qbank/qti"
	"github.com/seedhq/portal/internal/qbank/sheet"
)

// All lists the formats.
var All = []qbank.Format{qbank.Moodle, qbank.QTI, qbank.Sheet}

// Parse returns the format s names (moodle, qti, xlsx).
func Parse(s string) (qbank.Format, error) {
	for _, f := range All {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", apperr.Errorf(apperr.Invalid, "UNKNOWN_FORMAT", "format must be moodle, qti or xlsx, not %q", s)
}

// Ext is the file extension of an export in f.
func Ext(f qbank.Format) string {
	switch f {
	case qbank.Moodle:
		return ".xml"
	case qbank.QTI:
		return ".zip"
	}
	return ".xlsx"
}

// ContentType is the media type of an export in f.
func ContentType(f qbank.Format) string {
	switch f {
	case qbank.Moodle:
		return "application/xml"
	case qbank.QTI:
		return "application/zip"
	}
	return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
}

// Detect tells the format of a file by its bytes: a zip holding
// xl/workbook.xml is a spreadsheet, one holding imsmanifest.xml a QTI
// package, one holding an .xlsx a spreadsheet with its media; XML is
// Moodle's.
func Detect(ra io.ReaderAt, size int64) (qbank.Format, error) {
	head := make([]byte, 512)
	n, _ := ra.ReadAt(head, 0)
	head = head[:n]
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		zr, err := zip.NewReader(ra, size)
		if err != nil {
			return "", qbank.Invalid("the file is a broken zip: %v", err)
		}
		hasXLSX := false
		for _, f := range zr.File {
			switch {
			case f.Name == "xl/workbook.xml":
				return qbank.Sheet, nil
			case strings.EqualFold(path.Base(f.Name), "imsmanifest.xml"):
				return qbank.QTI, nil
			case isXLSX(f.Name):
				hasXLSX = true
			}
		}
		if hasXLSX {
			return qbank.Sheet, nil
		}
		return "", qbank.Invalid("the zip holds neither an .xlsx nor a QTI package (imsmanifest.xml)")
	}
	text, _ := qbank.UTF8Reader(bytes.NewReader(head)) // UTF-16 with its byte-order mark too
	decoded, _ := io.ReadAll(text)
	t := bytes.TrimLeft(bytes.TrimPrefix(decoded, []byte("\xef\xbb\xbf")), " \t\r\n")
	if bytes.HasPrefix(t, []byte("<")) {
		return qbank.Moodle, nil
	}
	return "", qbank.Invalid("the file is neither Moodle XML, a QTI package nor an .xlsx spreadsheet")
}

func isXLSX(name string) bool {
	base := path.Base(name)
	return strings.EqualFold(path.Ext(base), ".xlsx") && !strings.HasPrefix(name, "__MACOSX/") && !strings.HasPrefix(base, "~$")
}

// Import reads a bank in format f from ra (size bytes), storing its media
// in media. The xlsx format is a single .xlsx, or a .zip holding one
// .xlsx and the media files its rows name. An item that would lose a
// figure (an image or audio that cannot be found or stored) is refused,
// MEDIA_NOT_FOUND, unless opts.AllowMissingMedia.
func Import(ctx context.Context, f qbank.Format, ra io.ReaderAt, size int64, media qbank.MediaStore, opts qbank.ImportOptions) (*qbank.Bank, error) {
	if size > qbank.MaxFileSize {
		return nil, qbank.ErrTooLarge
	}
	var bank *qbank.Bank
	var err error
	switch f {
	case qbank.Moodle:
		bank, err = moodle.Import(ctx, io.NewSectionReader(ra, 0, size), media)
	case qbank.QTI:
		bank, err = qti.Import(ctx, ra, size, media)
	case qbank.Sheet:
		bank, err = importSheet(ctx, ra, size, media)
	default:
		_, err = Parse(string(f))
	}
	if err != nil {
		return nil, err
	}
	if !opts.AllowMissingMedia {
		bank.RefuseLostMedia()
	}
	return bank, nil
}

// importSheet imports a spreadsheet, alone or in a zip with its media.
func importSheet(ctx context.Context, ra io.ReaderAt, size int64, media qbank.MediaStore) (*qbank.Bank, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, qbank.Invalid("the file is neither an .xlsx nor a .zip")
	}
	if len(zr.File) > qbank.MaxArchiveEntries {
		return nil, qbank.Invalid("the zip holds more than %d entries", qbank.MaxArchiveEntries)
	}
	var book *zip.File
	byName := map[string]*zip.File{}
	for _, f := range zr.File {
		if f.Name == "xl/workbook.xml" {
			return sheet.Import(ctx, ra, size, media, nil) // a bare .xlsx
		}
		if f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") {
			continue
		}
		if isXLSX(f.Name) {
			if book != nil {
				return nil, qbank.Invalid("the zip holds more than one .xlsx (%s, %s)", book.Name, f.Name)
			}
			book = f
			continue
		}
		byName[f.Name] = f
		if _, ok := byName[path.Base(f.Name)]; !ok {
			byName[path.Base(f.Name)] = f
		}
		if low := strings.ToLower(f.Name); byName[low] == nil {
			byName[low] = f
		}
	}
	if book == nil {
		return nil, qbank.Invalid("the zip holds no .xlsx")
	}
	if dir := path.Dir(book.Name); dir != "." {
		for _, f := range zr.File {
			if rel, ok := strings.CutPrefix(f.Name, dir+"/"); ok && f != book {
				byName[rel] = f // a name relative to the sheet wins
				byName[strings.ToLower(rel)] = f
			}
		}
	}
	var unpacked atomic.Int64
	tmp, err := os.CreateTemp("", "qbank-*.xlsx")
	if err != nil {
		return nil, fmt.Errorf("import sheet: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	rc, err := book.Open()
	if err != nil {
		return nil, qbank.Invalid("%s cannot be read: %v", book.Name, err)
	}
	n, err := io.Copy(tmp, &limited{r: rc, n: &unpacked})
	rc.Close()
	if err != nil {
		if apperr.CodeOf(err) != "" {
			return nil, err
		}
		return nil, qbank.Invalid("%s cannot be read: %v", book.Name, err)
	}
	files := func(name string) (io.ReadCloser, bool) {
		name = strings.TrimPrefix(path.Clean("/"+name), "/")
		f := byName[name]
		if f == nil {
			f = byName[strings.ToLower(name)]
		}
		if f == nil {
			return nil, false
		}
		rc, err := f.Open()
		if err != nil {
			return nil, false
		}
		return struct {
			io.Reader
			io.Closer
		}{&limited{r: rc, n: &unpacked}, rc}, true
	}
	return sheet.Import(ctx, tmp, n, media, files)
}

// limited reads r, counting into n, and fails once every reader sharing n
// read more than qbank.MaxUnpacked bytes (a zip bomb stops there).
type limited struct {
	r io.Reader
	n *atomic.Int64
}

func (l *limited) Read(p []byte) (int, error) {
	k, err := l.r.Read(p)
	if l.n.Add(int64(k)) > qbank.MaxUnpacked {
		return k, qbank.ErrTooLarge
	}
	return k, err
}

// Export writes e in format f; media reads the files the exports of
// Moodle and QTI carry (the spreadsheet keeps their media: references).
func Export(ctx context.Context, f qbank.Format, w io.Writer, e exam.Exam, media qbank.MediaSource) error {
	switch f {
	case qbank.Moodle:
		return moodle.Export(ctx, w, e, media)
	case qbank.QTI:
		return qti.Export(ctx, w, e, media)
	case qbank.Sheet:
		return sheet.Export(ctx, w, e)
	}
	_, err := Parse(string(f))
	return err
}
