package console

import (
	"net/http"
	"strconv"
)

// pageSize is the rows a long list shows at once.
const pageSize = 100

// pager is the position of a page in a list, for the "pager" template:
// page numbers count from 1.
type pager struct {
	Page, Pages, Total int
	// Prev and Next are the neighbouring pages' URLs (the request's with
	// another page), empty at the ends.
	Prev, Next string
}

// paginate returns the page of items that r asks for (?page=, from 1;
// out of range: the nearest page) and its pager.
func paginate[T any](r *http.Request, items []T, size int) ([]T, pager) {
	p := pager{Total: len(items), Pages: max(1, (len(items)+size-1)/size)}
	p.Page, _ = strconv.Atoi(r.URL.Query().Get("page"))
	p.Page = min(max(p.Page, 1), p.Pages)
	link := func(n int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		return r.URL.Path + "?" + q.Encode()
	}
	if p.Page > 1 {
		p.Prev = link(p.Page - 1)
	}
	if p.Page < p.Pages {
		p.Next = link(p.Page + 1)
	}
	lo := (p.Page - 1) * size
	return items[lo:min(lo+size, len(items))], p
}
