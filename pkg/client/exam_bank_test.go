package client_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/qbank/sheet"
	"github.com/seedhq/portal/pkg/client"
)

// TestIntegrationExamImport imports a spreadsheet bank into a real portal:
// the template, a preview, a refused creation, a creation of the rows that
// passed, and the exam exported and read back.
func TestIntegrationExamImport(t *testing.T) {
	old := password.Cost
	password.Cost = 4
	t.Cleanup(func() { password.Cost = old })
	for _, so := range itStores {
		t.Run(so.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			base, _ := newRealPortal(t, so.open(t))
			c, err := client.NewClient(base)
			must(t, "new client", err)
			login, _, err := c.Exam.Auth.Login(ctx, itAdminUser, itAdminPassword)
			must(t, "login", err)
			c.SetToken(login.Token)

			var tpl bytes.Buffer
			_, err = c.Exam.Admin.ImportTemplate(ctx, &tpl)
			must(t, "template", err)
			f, err := excelize.OpenReader(bytes.NewReader(tpl.Bytes()))
			must(t, "open template", err)
			f.SetSheetRow(sheet.QuestionSheet, "A2", &[]string{"q1", "true_false", "", "Bumi itu bulat.", "", "benar"})
			f.SetSheetRow(sheet.QuestionSheet, "A3", &[]string{"q2", "single_choice", "", "2+2?", "a: 3\nb: 4", "c"})
			var xlsx bytes.Buffer
			must(t, "write sheet", f.Write(&xlsx))

			rep, _, err := c.Exam.Admin.ImportExam(ctx, bytes.NewReader(xlsx.Bytes()), client.ExamImportOptions{})
			must(t, "preview", err)
			if rep.Format != client.BankSheet || rep.Imported != 1 || rep.Refused != 1 || len(rep.Questions) != 1 ||
				rep.Items[1].Position != 3 || rep.Items[1].Code != "KEY_NOT_AN_OPTION" || rep.Questions[0].Answer[0] != "true" {
				t.Fatalf("preview %+v", rep)
			}
			start := time.Now().Add(time.Hour)
			opts := client.ExamImportOptions{Format: client.BankSheet, Create: true, Title: "Bank IPA", NPSN: []string{"20100001"},
				StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 90}
			_, _, err = c.Exam.Admin.ImportExam(ctx, bytes.NewReader(xlsx.Bytes()), opts)
			var refused *client.BankRefusedError
			if !errors.Is(err, &client.Error{Code: client.CodeBankHasRefusedItems}) || !errors.As(err, &refused) ||
				refused.Report == nil || refused.Report.Refused != 1 || refused.Report.Items[1].Code != "KEY_NOT_AN_OPTION" {
				t.Fatalf("creation with a refused row: %v (report %+v)", err, refused)
			}
			opts.OnlyPassed = true
			rep, resp, err := c.Exam.Admin.ImportExam(ctx, bytes.NewReader(xlsx.Bytes()), opts)
			must(t, "create", err)
			if resp.StatusCode != 201 || rep.Exam == nil || rep.Exam.Title != "Bank IPA" || len(rep.Exam.Questions) != 1 {
				t.Fatalf("created %+v", rep)
			}
			var out bytes.Buffer
			_, err = c.Exam.Admin.ExportExam(ctx, rep.Exam.ID, client.BankSheet, &out)
			must(t, "export", err)
			back, _, err := c.Exam.Admin.ImportExam(ctx, &out, client.ExamImportOptions{})
			must(t, "read back", err)
			if back.Imported != 1 || back.Questions[0].Text != "Bumi itu bulat." {
				t.Fatalf("read back %+v", back)
			}
			if _, err := c.Exam.Admin.ExportExam(ctx, "nope", client.BankSheet, &out); !errors.Is(err, client.ErrNotFound) {
				t.Fatalf("export of no exam: %v", err)
			}
		})
	}
}
