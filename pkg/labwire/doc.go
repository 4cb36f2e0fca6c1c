// Package labwire is what crosses the wire between the portal and a lab
// server (labagent), defined once and imported by both and by pkg/client:
//
//   - the AES-256-GCM-STREAM format of packages, media, content blobs and
//     answer export bodies: NewPackageEncrypter, NewPackageDecrypter;
//   - the decrypted package and its content: Package, PackageExam,
//     PackageQuestion, ..., PackageFormats, DecodePackage, OpenContentBlob;
//   - licence tokens: SignLicense, ParseLicenseToken;
//   - answer records and the answer export file: Answer, ChecksumSHA256,
//     WriteAnswerExport, ReadAnswerExportHeader, ReadAnswerExportBody;
//   - students' exam passwords and their hash: ExamPassword,
//     HashExamPassword, CheckExamPassword, and RandomPassword;
//   - the identifiers both ends check: ValidNPSN, ValidServerCode,
//     ValidIdempotencyKey.
//
// The allow-list of exam content's HTML, which the portal applies after
// rendering and labagent applies again, is its subpackage sanitize.
//
// Errors are plain sentinels compared with errors.Is; the portal maps them
// to its own error codes. The formats are in docs/api/exam.md.
package labwire
