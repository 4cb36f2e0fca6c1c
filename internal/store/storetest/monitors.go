package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

func testMonitors(t *testing.T, s Store) {
	ctx := t.Context()
	m := exam.Monitor{ID: "mon-1", ServerCode: "LAB-B", NPSN: npsnA, SchoolName: "SMA Negeri 1", HardwareID: "hw-1",
		Status: exam.StatusOnline, ActiveExamsCount: 2, ConnectedStudents: 30, PendingAnswers: 120, ClientIP: "10.0.0.5",
		ClientVersion: "1.0.0", LastPingAt: at(0), UpdatedAt: at(0)}
	check(t, "UpsertMonitor creating", MustUpsertMonitor(t, s, m), m)

	// Replacing keeps the first ID and takes every other field.
	m2 := exam.Monitor{ID: "mon-2", ServerCode: "LAB-B", NPSN: npsnB, SchoolName: "SMA Negeri 2", HardwareID: "hw-2",
		Status: exam.StatusSyncing, ActiveExamsCount: 0, ConnectedStudents: 0, ClientIP: "",
		ClientVersion: "1.1.0", LastPingAt: at(time.Minute), UpdatedAt: at(time.Minute)}
	want := m2
	want.ID = m.ID
	check(t, "UpsertMonitor replacing", MustUpsertMonitor(t, s, m2), want)

	a := exam.Monitor{ID: "mon-3", ServerCode: "LAB-A", NPSN: npsnA, Status: exam.StatusOnline, LastPingAt: at(2 * time.Minute), UpdatedAt: at(2 * time.Minute)}
	c := exam.Monitor{ID: "mon-4", ServerCode: "LAB-C", NPSN: npsnB, Status: exam.StatusOnline, LastPingAt: at(-time.Hour), UpdatedAt: at(-time.Hour)}
	MustUpsertMonitor(t, s, c)
	MustUpsertMonitor(t, s, a)
	for _, tc := range []struct {
		npsn string
		want []exam.Monitor
	}{
		{"", []exam.Monitor{a, want, c}},
		{npsnA, []exam.Monitor{a}},
		{npsnB, []exam.Monitor{want, c}},
		{"29999999", nil},
	} {
		got, err := s.ListMonitors(ctx, exam.MonitorFilter{NPSN: tc.npsn})
		mustOK(t, "ListMonitors", err)
		check(t, "ListMonitors of npsn "+tc.npsn+" (by server_code)", got, tc.want)
	}

	// A group, out of order: one record created, two replaced (keeping
	// their IDs); an empty group writes nothing.
	d := exam.Monitor{ID: "mon-5", ServerCode: "LAB-D", NPSN: npsnA, Status: exam.StatusOnline, PendingAnswers: 7,
		LastPingAt: at(3 * time.Minute), UpdatedAt: at(3 * time.Minute)}
	c2 := exam.Monitor{ID: "mon-6", ServerCode: "LAB-C", NPSN: npsnB, Status: exam.StatusSyncing, ConnectedStudents: 12,
		LastPingAt: at(3 * time.Minute), UpdatedAt: at(3 * time.Minute)}
	a2 := exam.Monitor{ID: "mon-7", ServerCode: "LAB-A", NPSN: npsnA, Status: exam.StatusOnline, ClientVersion: "1.2.0",
		LastPingAt: at(3 * time.Minute), UpdatedAt: at(3 * time.Minute)}
	mustOK(t, "UpsertMonitors of a group", s.UpsertMonitors(ctx, []exam.Monitor{d, c2, a2}))
	mustOK(t, "UpsertMonitors of none", s.UpsertMonitors(ctx, nil))
	c2.ID, a2.ID = c.ID, a.ID
	got, err := s.ListMonitors(ctx, exam.MonitorFilter{})
	mustOK(t, "ListMonitors", err)
	check(t, "ListMonitors after a group", got, []exam.Monitor{a2, want, c2, d})
}
