//go:build !windows

package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit"
)

// TestRunServesHeldPackageAtOnce: after a restart, labagent answers its
// first student request with the package it holds on disk. Serving before
// the package was read would show the students "no exam package on this
// server yet; ask the proctor" for a moment after every power cut.
func TestRunServesHeldPackageAtOnce(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	dir := filepath.Dir(f.dbPath)
	stop := f.run(f.syncer())
	f.pkgs.wait(t, 1)
	stop()
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := agent.WriteConfig(dir, f.cfg); err != nil {
		t.Fatal(err)
	}

	for run := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- agent.Run(ctx, agent.RunOptions{DataDir: dir, Listen: "127.0.0.1:0", ControlAddr: "127.0.0.1:0", ProctorPassword: "proctor-pw"})
		}()
		var ctl agent.Control
		testkit.Eventually(t, 30*time.Second, "the control file", func() bool {
			b, err := os.ReadFile(filepath.Join(dir, agent.ControlFile))
			return err == nil && json.Unmarshal(b, &ctl) == nil && ctl.LANAddr != ""
		})
		// The control file is written when the servers are about to serve:
		// the first request may need a retry to connect, never to find
		// the package.
		var info struct {
			PackageReady bool `json:"package_ready"`
		}
		testkit.Eventually(t, 30*time.Second, "the student API", func() bool {
			res, err := http.Get("http://" + ctl.LANAddr + "/api/student/info")
			if err != nil {
				return false
			}
			defer res.Body.Close()
			return res.StatusCode == http.StatusOK && json.NewDecoder(res.Body).Decode(&info) == nil
		})
		if !info.PackageReady {
			t.Errorf("run %d: the first answer of the student API says no package is ready, although one is on disk", run)
		}
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: Run = %v", run, err)
		}
		os.Remove(filepath.Join(dir, agent.ControlFile))
	}
}
