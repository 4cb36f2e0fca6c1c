package console

import "testing"

// TestCatalogs checks that every text has its Indonesian and English
// version and that no key is defined by two catalogs.
func TestCatalogs(t *testing.T) {
	owner := map[string]int{}
	for i, m := range catalogs {
		for key := range m["en"] {
			if _, ok := m["id"][key]; !ok {
				t.Errorf("%q has no Indonesian text", key)
			}
			if j, dup := owner[key]; dup {
				t.Errorf("%q is in catalogs %d and %d", key, j, i)
			}
			owner[key] = i
		}
		for key := range m["id"] {
			if _, ok := m["en"][key]; !ok {
				t.Errorf("%q has no English text", key)
			}
		}
	}
}
