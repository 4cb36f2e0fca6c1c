// Package storetest is the one conformance suite of the portal's stores
// (Store for the exam domain and the accounts, RunLinks, RunOrdering). Every storage
// backend runs Run against fresh stores of its own, so that a behaviour only
// one backend gets right shows up as a failing test of the other.
//
// The suite pins every rule written in the doc comments of exam.Store, plus a
// few readings of them that both backends must share:
//
//   - Times come back in UTC and truncated to the microsecond (PostgreSQL
//     keeps microseconds); the suite only passes times already truncated to
//     the microsecond, in a non-UTC zone.
//   - Orders by a string field (member nama, academic-year name, server_code,
//     ids) are byte-wise, as Go compares strings and PostgreSQL's "C"
//     collation does, never locale-aware.
//   - A push is identified only by earlier pushes that SaveAnswers accepted:
//     sync-log records written with AppendSyncLog (rejected or duplicate
//     pushes) never make a later push a duplicate or an idempotency conflict.
//   - Within one ImportMembers call, a row whose username was already written
//     by an earlier row of the same call is rejected (DUPLICATE_MEMBER), as for
//     every other unique field; only members that existed before the call are
//     updated by username.
//   - Member usernames and emails are unique and matched case-insensitively,
//     also when ImportMembers matches a row to a member by username.
//   - ListMembers' Search is a plain substring: % and _ match only themselves.
//   - BindServer reports ErrHardwareMismatch when the hardware differs, even
//     when the school differs too.
//   - Empty values of unique member fields are never indexed: LookupMember of
//     an empty value finds nobody, and empty fields never clash on import.
//   - SetExamPassword may or may not move UpdatedAt (the call carries no
//     time); every other field but the generation and hash stays.
//   - A package's Format is at least 1: a zero is kept as 1, the format of
//     every package written before formats were recorded.
//   - Grades keep every version: a stale or skipped version is
//     ErrGradeConflict, and of concurrent saves of one version exactly one
//     succeeds. Points are kept to the hundredth.
//   - SavePackage checks that r yields meta.Size bytes whose SHA-256 is
//     meta.Checksum and fails, keeping the current package, when it does not.
//   - SavePackage records meta.Blobs (the blob names of a package of format
//     3) in its own transaction, replacing the package's earlier names, also
//     when the bytes are stored already; GetPackage does not return them.
//   - SaveMedia of a SHA-256 stored already keeps the first record (its name
//     and time) and need not read r; a failed SaveMedia leaves nothing.
package storetest

import (
	"testing"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
)

// Store is what Run checks: the exam domain's store, with the operator
// accounts (and failed sign-ins) and the Idempotency-Key receipts that the
// portal keeps beside it.
type Store interface {
	exam.Store
	identity.Store
	idempotency.Store
}

// Run runs the conformance suite, each test as a subtest with a fresh, empty
// store from open. open should register the store's cleanup with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) Store) {
	t.Helper()
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

type test struct {
	name string
	run  func(t *testing.T, s Store)
}

var suite = []test{
	{"Ping", testPing},

	{"Secrets", testSecrets},
	{"SecretsConcurrent", testSecretsConcurrent},

	{"Users", testUsers},
	{"UsernameTaken", testUsernameTaken},
	{"ListUsers", testListUsers},

	{"Licenses", testLicenses},
	{"RevokeLicense", testRevokeLicense},

	{"BindServer", testBindServer},
	{"BindServerMismatch", testBindServerMismatch},
	{"ListServerBindings", testListServerBindings},
	{"DeleteServerBinding", testDeleteServerBinding},

	{"Exams", testExams},
	{"ListExams", testListExams},
	{"UpdateExam", testUpdateExam},
	{"DeleteExam", testDeleteExam},
	{"SetItemParameters", testSetItemParameters},
	{"Calibrations", testCalibrations},
	{"LockCalibration", testLockCalibration},
	{"ContentRevision", testContentRevision},

	{"ImportMembersCreate", testImportMembersCreate},
	{"ImportMembersUpdate", testImportMembersUpdate},
	{"ImportMembersRejectsExisting", testImportMembersRejectsExisting},
	{"ImportMembersRejectsWithinCall", testImportMembersRejectsWithinCall},
	{"ImportMembersLarge", testImportMembersLarge},
	{"LookupMember", testLookupMember},
	{"ListMembers", testListMembers},
	{"SetExamPassword", testSetExamPassword},

	{"AcademicYears", testAcademicYears},
	{"APIKeys", testAPIKeys},

	{"SaveAnswers", testSaveAnswers},
	{"SaveAnswersIdempotency", testSaveAnswersIdempotency},
	{"SaveAnswersIgnoresLoggedPushes", testSaveAnswersIgnoresLoggedPushes},
	{"SaveAnswersEmpty", testSaveAnswersEmpty},
	{"AnswerUpsert", testAnswerUpsert},
	{"ListAnswers", testListAnswers},
	{"SaveAnswersLarge", testSaveAnswersLarge},
	{"ListAnswersQuery", testListAnswersQuery},
	{"ListSyncLogs", testListSyncLogs},

	{"Monitors", testMonitors},
	{"LoginFailures", testLoginFailures},
	{"IdempotencyKeys", testIdempotencyKeys},
	{"IdempotencyKeysConcurrent", testIdempotencyKeysConcurrent},

	{"Packages", testPackages},
	{"PackageSharedBlob", testPackageSharedBlob},
	{"PackageChecksumMismatch", testPackageChecksumMismatch},
	{"PackageBlobNames", testPackageBlobNames},

	{"Media", testMedia},
	{"MediaRefused", testMediaRefused},
	{"MediaBlob", testMediaBlob},
	{"Grades", testGrades},
	{"GradesConcurrent", testGradesConcurrent},
	{"GraderExams", testGraderExams},

	{"FailuresWriteNothing", testFailuresWriteNothing},
}

func testPing(t *testing.T, s Store) {
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}
