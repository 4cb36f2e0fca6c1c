package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit"
)

// TestCommandTree: a mistyped sub-command is a usage error (exit 2) naming
// it, and no flag shadows a global one.
func TestCommandTree(t *testing.T) {
	testkit.CheckCommandTree(t, newRootCmd(io.Discard, io.Discard), func(args []string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, &stdout, &stderr)
		return code, stderr.String()
	})
}

// TestPrintStatusLastContact: "labagent status" shows the last contact
// with the portal and its kind beside the last handshake.
func TestPrintStatusLastContact(t *testing.T) {
	hs := time.Date(2026, 12, 1, 4, 56, 0, 0, time.UTC)
	var out bytes.Buffer
	printStatus(&out, agent.Status{Exams: []agent.ExamWindow{}, Sync: agent.SyncStatus{State: agent.SyncOnline,
		LastHandshakeAt: hs, LastContactAt: hs.Add(7 * time.Minute), LastContactKind: "push"}})
	want := "last contact    " + hs.Add(7*time.Minute).Local().Format("2006-01-02 15:04:05") + " (push)\n" +
		"last handshake  " + hs.Local().Format("2006-01-02 15:04:05") + " (clock skew 0 ms)\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("status:\n%s\nwant the lines\n%s", out.String(), want)
	}
	out.Reset()
	printStatus(&out, agent.Status{Exams: []agent.ExamWindow{}, Sync: agent.SyncStatus{State: agent.SyncOffline}})
	if !strings.Contains(out.String(), "last contact    never\n") {
		t.Fatalf("status before any contact:\n%s", out.String())
	}
}
