// Package client is the typed Go client of the seedhq portal: the exam
// synchronisation API under /api/v1, the link-management API and the
// ordering API under /api, plus the health endpoints.
//
// It is shaped like google/go-github. A Client holds one *http.Client, the
// portal's base address and the credentials; the API is reached through
// services that are fields of the Client, grouped the way the URL paths and
// the credentials are:
//
//	c.Exam.Auth       /api/v1/auth/...          operator login (no credential), me (operator JWT)
//	c.Exam.Licenses   /api/v1/licenses/...      operator JWT (the public key needs none)
//	c.Exam.Sync       /api/v1/sync/...          lab-server JWT (the handshake needs none)
//	c.Exam.Admin      /api/v1/admin/...         operator JWT
//	c.Exam.Directory  /api/v1/academic-year/... and /api/v1/members...  X-API-Key
//	c.Links.*         /api/account, /api/domains, /api/urls, /api/qr, ...  link key (WithLinkKey): Authorization: Bearer
//	c.Ordering.*      /api/auth/..., /api/menu, /api/orders, /api/ledger, ...  ordering JWT (WithOrderingToken)
//	c.Ordering.Admin  /api/v1/admin/ordering/...  operator JWT: the shop's users, bans, menu import, ledger
//
// Every method takes a context.Context first and returns the decoded value,
// a *Response (the *http.Response plus paging and rate-limit information) and
// an error. Each request carries only the credential its endpoint expects:
// the operator or lab-server token set with WithToken or SetToken, the link
// key set with WithLinkKey, the ordering JWT set with WithOrderingToken or
// SetOrderingToken, or the directory key set with WithAPIKey.
//
// The ordering API's messenger login needs a solved anti-bot challenge
// (SolveChallenge) and ends with WaitVerified; SignGatewayWebhook and
// SignProviderWebhook sign the messaging gateway's and the payment
// provider's notifications as the portal verifies them.
//
// Errors answered by the portal are *Error values with the HTTP status, the
// stable code and the message of the API's error envelope; errors.Is matches
// them against sentinels by status (ErrNotFound, ErrUnauthorized, ...) and
// against an *Error with only a Code set by code:
//
//	_, _, err := c.Exam.Sync.VerifyServer(ctx, req)
//	switch {
//	case errors.Is(err, &client.Error{Code: client.CodeLicenseRevoked}):
//		// stop: the licence was revoked
//	case errors.Is(err, client.ErrRateLimited):
//		var e *client.Error
//		errors.As(err, &e)
//		time.Sleep(e.RetryAfter)
//	}
//
// A lab server also needs two things that work offline: VerifyLicenseToken
// checks a licence token with the portal's Ed25519 public key, and
// NewPackageDecrypter (or DecodePackage) opens an exam package encrypted in
// the AES-256-GCM-STREAM format. They come from package
// github.com/seedhq/portal/pkg/labwire, which defines what crosses the wire
// between the portal and a lab server once, for the portal, labagent and
// this package: Package and its parts, Answer, LicensePayload,
// PackageDecrypter, QuestionOption and Stimulus here are type aliases of
// labwire's, and the package errors the same values, so code written
// against this package compiles and behaves unchanged; new code may use
// either name.
//
// A minimal operator session:
//
//	c, err := client.NewClient("https://portal.example.org")
//	if err != nil { ... }
//	login, _, err := c.Exam.Auth.Login(ctx, "admin", password)
//	if err != nil { ... }
//	c.SetToken(login.Token)
//	exams, _, err := c.Exam.Admin.ListExams(ctx, &client.ExamListOptions{NPSN: "20100001"})
//
// The package never imports the portal's internal packages.
package client
