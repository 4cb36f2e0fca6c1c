package console

import (
	"net/http/httptest"
	"slices"
	"testing"
)

// TestPaginate: pages of a list, the links to the neighbours keeping the
// other parameters, and pages out of range taken as the nearest.
func TestPaginate(t *testing.T) {
	items := make([]int, 250)
	for i := range items {
		items[i] = i
	}
	for _, tc := range []struct {
		query      string
		page, from int
		prev, next string
	}{
		{"", 1, 0, "", "/console/fleet?page=2&status=online"},
		{"page=2", 2, 100, "/console/fleet?page=1&status=online", "/console/fleet?page=3&status=online"},
		{"page=3", 3, 200, "/console/fleet?page=2&status=online", ""},
		{"page=9", 3, 200, "/console/fleet?page=2&status=online", ""},
		{"page=-1", 1, 0, "", "/console/fleet?page=2&status=online"},
		{"page=x", 1, 0, "", "/console/fleet?page=2&status=online"},
	} {
		r := httptest.NewRequest("GET", "/console/fleet?status=online&"+tc.query, nil)
		got, p := paginate(r, items, 100)
		if p.Page != tc.page || p.Pages != 3 || p.Total != 250 || got[0] != tc.from || p.Prev != tc.prev || p.Next != tc.next {
			t.Errorf("%q: page %+v starting at %d", tc.query, p, got[0])
		}
		if tc.page == 3 && len(got) != 50 {
			t.Errorf("%q: the last page has %d items, want 50", tc.query, len(got))
		}
	}
	got, p := paginate(httptest.NewRequest("GET", "/x", nil), []int(nil), 100)
	if len(got) != 0 || p.Pages != 1 || p.Prev != "" || p.Next != "" {
		t.Errorf("empty list: %v %+v", got, p)
	}
	if got, _ := paginate(httptest.NewRequest("GET", "/x", nil), []int{1, 2}, 100); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("short list: %v", got)
	}
}
