package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
)

// previousReleaseSchema is the last PostgreSQL migration of the previous
// release. The repository has no release tags yet; the previous release is
// taken as the schema before the ledger's read model (0009), the marketers'
// day and device roll-ups (0010) and the shared login failures (0011), as
// docs/operations.md ("Upgrade") says. Move it forward at each release.
const previousReleaseSchema = "0008_monitor_pending_answers"

// TestUpgradeFromPreviousReleasePostgres fills a database at the previous
// release's schema (the store for the operator; SQL as that release wrote
// them for a licence, a customer and a paid order, which today's store would
// also put in columns and tables that schema lacks), then runs today's
// "portal migrate" and starts a portal on it: the migrations apply forward,
// the paid order is in the ledger the new migration fills, the operator
// signs in and the licence is listed, with no region.
func TestUpgradeFromPreviousReleasePostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	ctx := t.Context()
	dbURL := pgtest.NewDatabase(t)
	const password = "upgrade-Password-1"

	st, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MigrateTo(ctx, previousReleaseSchema); err != nil {
		t.Fatalf("migrate to %s: %v", previousReleaseSchema, err)
	}
	ids, err := identity.Open(ctx, st, nil, identity.Config{})
	if err != nil {
		t.Fatalf("identity service at the previous schema: %v", err)
	}
	if _, _, err := ids.EnsureAdmin(ctx, "admin", password); err != nil {
		t.Fatalf("operator at the previous schema: %v", err)
	}
	st.Close()

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var versions int
	var ledger *string
	if err := conn.QueryRow(ctx, `SELECT count(*), to_regclass('ordering_ledger')::text FROM schema_migrations`).Scan(&versions, &ledger); err != nil || versions != 8 || ledger != nil {
		t.Fatalf("previous schema: %d migrations, ordering_ledger %v, %v; want 8 and no ledger table", versions, ledger, err)
	}
	paidAt := time.Now().UTC().Truncate(time.Second).Add(-time.Minute)
	order := ordering.Order{ID: "ord-upgrade-1", OrderNumber: "ORD-" + paidAt.In(mustLoadLocation(t, "Asia/Jakarta")).Format("20060102") + "-001",
		UserID: "user-upgrade-1", Status: ordering.Status("PAID"), ItemsTotal: 25000, ShippingCost: 5000, TotalPrice: 30000,
		ShippingType: "PICKUP", PaymentMethod: ordering.PaymentTransfer, CreatedAt: paidAt.Add(-time.Hour), UpdatedAt: paidAt,
		History: []ordering.StatusChange{
			{To: "PENDING_PAYMENT", By: "user-upgrade-1", Role: "CUSTOMER", At: paidAt.Add(-time.Hour)},
			{From: "PENDING_PAYMENT", To: "PAID", By: "staff", Role: "OWNER", At: paidAt},
		}}
	body, err := json.Marshal(order)
	if err != nil {
		t.Fatal(err)
	}
	issued := time.Now().UTC().Truncate(time.Second)
	if _, err := conn.Exec(ctx, `INSERT INTO licenses (id, npsn, school_name, hardware_id, max_students, operating_mode,
		issued_at, expires_at, revoked_at, token) VALUES ('lic-upgrade-1', $1, $2, $3, 10, 'SEMI_OFFLINE', $4, $5, NULL, 'token-upgrade-1')`,
		e2eNPSN, e2eSchool, e2eHardwareID, issued, issued.AddDate(0, 0, 30)); err != nil {
		t.Fatalf("licence at the previous schema: %v", err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO ordering_users (id, messenger_number, role, created_at, last_login_at)
		VALUES ('user-upgrade-1', '6281234500001', 'CUSTOMER', now(), now())`); err != nil {
		t.Fatalf("customer at the previous schema: %v", err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO ordering_orders (id, order_number, user_id, status, total_price, created_at, updated_at, body)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, order.ID, order.OrderNumber, order.UserID, string(order.Status), order.TotalPrice,
		order.CreatedAt, order.UpdatedAt, body); err != nil {
		t.Fatalf("order at the previous schema: %v", err)
	}

	res := runPortal(t, nil, "", "migrate", "--database-url", dbURL)
	if res.Code != 0 || !strings.Contains(res.Stdout, "the schema is up to date") {
		t.Fatalf("migrate from %s: exit %d\n%s%s", previousReleaseSchema, res.Code, res.Stdout, res.Stderr)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&versions); err != nil || versions <= 8 {
		t.Errorf("after migrate: %d migrations, %v", versions, err)
	}

	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), nil, "--database-url", dbURL)
	op := mustOperatorClient(t, p.URL, "admin", password)
	lics, _, err := op.Exam.Licenses.List(ctx, nil)
	if err != nil || len(lics) != 1 || lics[0].NPSN != e2eNPSN || lics[0].Region != "" || lics[0].Status != "active" {
		t.Errorf("licences after the upgrade: %s, %v", jsonString(lics), err)
	}
	day := paidAt.In(mustLoadLocation(t, "Asia/Jakarta")).Format("2006-01-02")
	l, _, err := op.Ordering.Admin.Ledger(ctx, day, day)
	if err != nil || l.Total != 30000 {
		t.Errorf("ledger after the upgrade: %s, %v; want the order paid at the previous schema (30000)", jsonString(l), err)
	}
	p.Stop()
}

// TestUpgradeFromPreviousReleaseBolt starts today's binary on a bbolt file
// as the previous release left it: an order paid, and no ordering_ledger or
// login_failures bucket (the file is made so from one written today, as
// bbolt has no schema to roll back). The store migrates in place at Open
// (bolt.migrateLedger; the visits layouts have their own unit tests): the
// paid order is in the ledger and the operator signs in.
func TestUpgradeFromPreviousReleaseBolt(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	ctx := t.Context()
	dataDir := filepath.Join(t.TempDir(), "data")
	p := mustStartPortal(t, dataDir, nil, "--ordering-owner-number", "0811-0000-001")
	password := mustReadAdminPassword(t, p)
	runOrderingScenario(t, p)
	p.Stop()

	db, err := bbolt.Open(filepath.Join(dataDir, boltFileName), 0o600, &bbolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, b := range []string{"ordering_ledger", "login_failures"} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("make the previous release's file: %v", err)
	}

	p2 := mustStartPortal(t, dataDir, nil, "--ordering-owner-number", "0811-0000-001")
	op := mustOperatorClient(t, p2.URL, "admin", password)
	today := time.Now().In(mustLoadLocation(t, "Asia/Jakarta")).Format("2006-01-02")
	l, _, err := op.Ordering.Admin.Ledger(ctx, today, today)
	if err != nil || l.Total != 18000 {
		t.Errorf("ledger after the upgrade: %s, %v; want the paid order (18000)", jsonString(l), err)
	}
	p2.Stop()
}
