// Package pgtest gives tests a fresh PostgreSQL database of their own.
//
// The server is the one of PORTAL_TEST_DATABASE_URL, by default
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable. When it cannot
// be reached, tests that need it are skipped with a loud message, or fail
// when CI=true, so that CI never passes without testing PostgreSQL.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL is the environment variable naming the test server's URL.
const EnvURL = "PORTAL_TEST_DATABASE_URL"

// DefaultURL is the test server's URL when EnvURL is not set.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL returns the URL of the test server's maintenance database, from
// EnvURL or DefaultURL.
func AdminURL() string {
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	return DefaultURL
}

// reachable checks, once per process, that the test server answers.
var reachable = sync.OnceValue(func() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx)
})

// warnOnce prints the unreachable banner once per process.
var warnOnce sync.Once

// NewDatabase creates a new, empty, uniquely named database on the test
// server, registers its removal (DROP DATABASE ... WITH (FORCE)) with
// t.Cleanup, and returns its URL. When the server is unreachable it skips
// the test, or fails it when the environment has CI=true.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin := AdminURL()
	if err := reachable(); err != nil {
		why := fmt.Sprintf("cannot connect to %s (from %s, else the default): %s. "+
			"Start PostgreSQL or point %s at a server.", redact(admin), EnvURL, sanitize(err, admin), EnvURL)
		if os.Getenv("CI") == "true" {
			t.Fatalf("POSTGRESQL UNREACHABLE and CI=true: failing %s: %s", t.Name(), why)
		}
		warnOnce.Do(func() {
			bar := strings.Repeat("#", 78)
			fmt.Fprintf(os.Stderr, "%s\n## POSTGRESQL UNREACHABLE: %s\n"+
				"## Every PostgreSQL test is SKIPPED: the PostgreSQL store is NOT tested.\n%s\n", bar, why, bar)
		})
		t.Skipf("POSTGRESQL UNREACHABLE: skipping %s: %s", t.Name(), why)
	}

	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatalf("pgtest: random database name: %v", err)
	}
	name := fmt.Sprintf("portal_test_%s_%d", hex.EncodeToString(rnd[:]), os.Getpid())
	dbURL, err := withDatabase(admin, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", redact(admin), sanitize(err, admin))
	}
	defer conn.Close(context.Background())
	// template0 never has connections, so concurrent creations cannot fail
	// with "source database is being accessed by other users".
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()+` TEMPLATE template0`); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("pgtest: drop database %s: connect: %v", name, sanitize(err, admin))
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return dbURL
}

// withDatabase returns the connection string admin with its database
// replaced by name. admin is a postgres:// URL or a key=value string.
func withDatabase(admin, name string) (string, error) {
	if strings.HasPrefix(admin, "postgres://") || strings.HasPrefix(admin, "postgresql://") {
		u, err := url.Parse(admin)
		if err != nil {
			return "", fmt.Errorf("invalid %s: %v", EnvURL, sanitize(err, admin))
		}
		u.Path, u.RawPath = "/"+name, ""
		return u.String(), nil
	}
	// In a key=value string a later key overrides an earlier one.
	return admin + " dbname=" + name, nil
}

// redact returns the connection string s with its password hidden.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	fields := strings.Fields(s)
	for i, kv := range fields {
		if strings.HasPrefix(kv, "password=") {
			fields[i] = "password=xxxxx"
		}
	}
	return strings.Join(fields, " ")
}

// password returns the password of the connection string s, if any.
func password(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		p, _ := u.User.Password()
		return p
	}
	for _, kv := range strings.Fields(s) {
		if p, ok := strings.CutPrefix(kv, "password="); ok {
			return strings.Trim(p, "'")
		}
	}
	return ""
}

// sanitize returns err's text with the password of s, if any, hidden.
func sanitize(err error, s string) string {
	msg := err.Error()
	if p := password(s); p != "" {
		msg = strings.ReplaceAll(msg, p, "xxxxx")
	}
	return msg
}
