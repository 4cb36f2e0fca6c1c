package client

import (
	"io"

	"github.com/seedhq/portal/pkg/labwire"
)

// The package format, its crypto and its content types are defined once, in
// package labwire, which the portal and labagent share; the names below are
// aliases of labwire's, kept so that code written against this package
// compiles unchanged. New code may use either.

// PackageEncryption names the package format, as the "encryption" field of a
// pull says it.
const PackageEncryption = labwire.PackageEncryption

// PackageFormats are the package formats this client reads, as the pulls
// name them to the portal in the X-Package-Formats header.
const PackageFormats = labwire.PackageFormats

// Errors of NewPackageDecrypter's reader and of DecodePackage, compared with
// errors.Is.
var (
	// ErrPackageFormat: the stream does not start with an
	// AES-256-GCM-STREAM header this client reads.
	ErrPackageFormat = labwire.ErrPackageFormat
	// ErrPackageCorrupt: a chunk failed authentication: a wrong key, or
	// bytes changed or cut inside a chunk.
	ErrPackageCorrupt = labwire.ErrPackageCorrupt
	// ErrPackageTruncated: the stream ends before its last chunk (it was
	// cut on a chunk boundary, or within the header).
	ErrPackageTruncated = labwire.ErrPackageTruncated
	// ErrBlobMismatch: bytes given as a blob are not the blob named (their
	// SHA-256 is not its name).
	ErrBlobMismatch = labwire.ErrBlobMismatch
	// ErrPackageTooNew: the package is in a format newer than this program
	// reads; upgrade it.
	ErrPackageTooNew = labwire.ErrPackageTooNew
)

// PackageDecrypter is a reader of the plaintext of an AES-256-GCM-STREAM
// package; see NewPackageDecrypter.
type PackageDecrypter = labwire.PackageDecrypter

// NewPackageDecrypter returns a reader of the plaintext of the
// AES-256-GCM-STREAM package read from r, with the school's 32-byte package
// key (Verification.PackageKey): labwire.NewPackageDecrypter, whose
// arguments come in the other order.
func NewPackageDecrypter(key []byte, r io.Reader) (*PackageDecrypter, error) {
	return labwire.NewPackageDecrypter(r, key)
}

// Package is the decrypted content of an exam package (labwire.Package).
type Package = labwire.Package

// PackageStudent is a student as a package ships it.
type PackageStudent = labwire.PackageStudent

// PackageExam is an exam as a package ships it.
type PackageExam = labwire.PackageExam

// PackageMedia is an image or audio file an exam shows.
type PackageMedia = labwire.PackageMedia

// PackageBlob is content of a package of format 3 kept apart as a blob.
type PackageBlob = labwire.PackageBlob

// PackageQuestion is a question as a package ships it, without its answer.
type PackageQuestion = labwire.PackageQuestion

// PackageBlank is a blank of a Cloze question as a package ships it.
type PackageBlank = labwire.PackageBlank

// OpenContentBlob checks, decrypts and decodes a content blob
// (labwire.OpenContentBlob).
func OpenContentBlob(b PackageBlob, sealed []byte, v any) error {
	return labwire.OpenContentBlob(b, sealed, v)
}

// DecodePackage decrypts the AES-256-GCM-STREAM package read from r with
// key and decodes its JSON (labwire.DecodePackage).
func DecodePackage(r io.Reader, key []byte) (*Package, error) {
	return labwire.DecodePackage(r, key)
}
