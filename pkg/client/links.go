package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// LinksService is the link-management API (/api, docs/api/links.md). Every
// call authenticates with the link user's API key (WithLinkKey or
// SetLinkKey), sent as "Authorization: Bearer <key>". Errors are *Error
// values read from the API's envelope {"error": 1, "message", "code"};
// another user's id answers ErrNotFound exactly as a missing one.
//
// Lists take a *LinkListOptions (nil: the first page of 10) and fill the
// paging fields of the Response (Page, PerPage, Total, TotalPages,
// NextPage); the All methods walk every page. Every authenticated answer
// fills Response.Rate from the X-RateLimit-* headers.
type LinksService struct {
	// Account is the caller's account (/api/account).
	Account *LinkAccountService
	// Domains is branded domains (/api/domains, /api/domain/...).
	Domains *LinkDomainsService
	// Overlays is CTA overlays (/api/overlay), created by operators.
	Overlays *LinkOverlaysService
	// Splash is custom splash pages (/api/splash), created by operators.
	Splash *LinkSplashService
	// Campaigns is campaigns (/api/campaigns, /api/campaign/...).
	Campaigns *LinkCampaignsService
	// Channels is channels and their items (/api/channels, /api/channel/...).
	Channels *LinkChannelsService
	// Pixels is tracking pixels (/api/pixels, /api/pixel/...).
	Pixels *LinkPixelsService
	// QR is QR codes (/api/qr...).
	QR *LinkQRService
	// URLs is short links (/api/urls, /api/url/...).
	URLs *LinkURLsService
}

// LinkAccountService is the caller's account of the link API.
type LinkAccountService service

// LinkDomainsService is the caller's branded domains.
type LinkDomainsService service

// LinkOverlaysService is the caller's CTA overlays (read only).
type LinkOverlaysService service

// LinkSplashService is the caller's custom splash pages (read only).
type LinkSplashService service

// LinkCampaignsService is the caller's campaigns.
type LinkCampaignsService service

// LinkChannelsService is the caller's channels.
type LinkChannelsService service

// LinkPixelsService is the caller's tracking pixels.
type LinkPixelsService service

// LinkQRService is the caller's QR codes.
type LinkQRService service

// LinkURLsService is the caller's short links.
type LinkURLsService service

func newLinksService(s *service) *LinksService {
	return &LinksService{
		Account:   (*LinkAccountService)(s),
		Domains:   (*LinkDomainsService)(s),
		Overlays:  (*LinkOverlaysService)(s),
		Splash:    (*LinkSplashService)(s),
		Campaigns: (*LinkCampaignsService)(s),
		Channels:  (*LinkChannelsService)(s),
		Pixels:    (*LinkPixelsService)(s),
		QR:        (*LinkQRService)(s),
		URLs:      (*LinkURLsService)(s),
	}
}

// Ptr returns a pointer to v, for the optional fields of update requests
// (client.Ptr(""), for example, clears a domain's redirect).
func Ptr[T any](v T) *T { return &v }

// LinkListOptions selects one page of a link-API list.
type LinkListOptions struct {
	// Page is the page to return, from 1; 0 means the first.
	Page int
	// Limit is the number of records per page, 1 to 1000; 0 means the
	// portal's default, 10.
	Limit int
}

// values returns the query of the options (nil o: none).
func (o *LinkListOptions) values() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	if o.Page > 0 {
		q.Set("page", strconv.Itoa(o.Page))
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	return q
}

// Link item types of channel assignments (LinkChannelsService.Assign).
const (
	LinkItemLinks = "links" // a short link
	LinkItemBio   = "bio"   // a bio page (none exist yet: 404)
	LinkItemQR    = "qr"    // a QR code
)

// Short-link list orders (LinkURLListOptions.Order).
const (
	LinkOrderDate   = "date"   // newest first, the default
	LinkOrderClicks = "clicks" // most clicks first, then newest
)

// --- Envelope -----------------------------------------------------------------

// linkFlag is the "error" field of the link API's envelopes: the integer 0
// on most successes, the string "0" on lists, 1 (or "1") on errors. Any
// integer, its decimal string, a boolean or null is accepted; non-zero (or
// true) means an error.
type linkFlag int

// UnmarshalJSON implements json.Unmarshaler.
func (f *linkFlag) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "null", "false", `""`:
		*f = 0
		return nil
	case "true":
		*f = 1
		return nil
	}
	s := string(b)
	if len(b) >= 2 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("client: link envelope: error field %s is neither 0 nor 1", b)
	}
	*f = linkFlag(n)
	return nil
}

// linkEnvelope is what every answer of the link API carries.
type linkEnvelope struct {
	Error   linkFlag `json:"error"`
	Message string   `json:"message"`
	Code    string   `json:"code"`
}

// linkCall calls one endpoint of the link API (path relative to the base
// address, such as "api/domains") with the link key and decodes a success
// into v. A 2xx answer whose envelope says "error": 1 is an *Error too.
func (c *Client) linkCall(ctx context.Context, method, path string, q url.Values, body, v any) (*Response, error) {
	var raw json.RawMessage
	resp, err := c.call(ctx, method, path, q, body, &raw, credLinkKey, decodeLinkError)
	if err != nil {
		return resp, err
	}
	where := method + " " + path
	if resp.Request != nil {
		where = resp.Request.Method + " " + redact(resp.Request.URL)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return resp, nil
	}
	var env linkEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return resp, fmt.Errorf("client: %s: decode response: %w", where, err)
	}
	if env.Error != 0 {
		e := &Error{Status: resp.StatusCode, Code: env.Code, Message: env.Message, RequestID: resp.Header.Get("X-Request-ID")}
		if resp.Request != nil {
			e.Method, e.URL = resp.Request.Method, redact(resp.Request.URL)
		}
		return resp, e
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			return resp, fmt.Errorf("client: %s: decode response: %w", where, err)
		}
	}
	return resp, nil
}

// linkPath returns the path of a record route, such as
// linkPath("api/domain/%d/update", id).
func linkPath(format string, ids ...any) string { return fmt.Sprintf(format, ids...) }

// linkList calls a list endpoint and returns the records of data.<name>,
// setting the Response's paging fields.
func linkList[T any](ctx context.Context, c *Client, path, name string, q url.Values) ([]*T, *Response, error) {
	var body struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	resp, err := c.linkCall(ctx, http.MethodGet, path, q, nil, &body)
	if err != nil {
		return nil, resp, err
	}
	num := func(key string) int {
		var n json.Number
		if raw, ok := body.Data[key]; ok && json.Unmarshal(raw, &n) == nil {
			i, _ := n.Int64()
			return int(i)
		}
		var s string
		if raw, ok := body.Data[key]; ok && json.Unmarshal(raw, &s) == nil {
			i, _ := strconv.Atoi(s)
			return i
		}
		return 0
	}
	items := []*T{}
	if raw, ok := body.Data[name]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, resp, fmt.Errorf("client: GET %s: decode data.%s: %w", path, name, err)
		}
	}
	resp.setPaging(num("currentpage"), num("perpage"), num("result"), num("maxpage"))
	resp.NextPage = num("nextpage")
	return items, resp, nil
}

// linkAll walks every page of a list from opts' page (nil: the first),
// yielding each record, or one error that ends the walk.
func linkAll[T any](ctx context.Context, opts *LinkListOptions, list func(context.Context, *LinkListOptions) ([]*T, *Response, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		o := LinkListOptions{}
		if opts != nil {
			o = *opts
		}
		for {
			items, resp, err := list(ctx, &o)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if resp.NextPage == 0 || resp.NextPage <= o.Page {
				return
			}
			o.Page = resp.NextPage
		}
	}
}

// LinkCount is a count of a statistics block, sent by the spec as a string
// ("15"); a JSON number is accepted too.
type LinkCount int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *LinkCount) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return fmt.Errorf("client: count %s is not a number", b)
		}
		i = int64(f)
	}
	*n = LinkCount(i)
	return nil
}

// LinkLabelCount is one entry of a LinkTopList.
type LinkLabelCount struct {
	Label string
	Count int64
}

// LinkTopList is a ranking of a statistics block, highest count first. In
// JSON it is an object from label to count (a string, as the spec says, or
// a number), in ranking order: {"US":"12","GB":"3"}; the order is kept.
type LinkTopList []LinkLabelCount

// MarshalJSON writes the list as the API does: an object of label to count
// (as a string), in ranking order.
func (t LinkTopList) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, lc := range t {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(lc.Label)
		if err != nil {
			return nil, err
		}
		b = append(b, k...)
		b = append(b, ':', '"')
		b = strconv.AppendInt(b, int64(lc.Count), 10)
		b = append(b, '"')
	}
	return append(b, '}'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *LinkTopList) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*t = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("client: top list %s is not a JSON object", b)
	}
	out := LinkTopList{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		var n LinkCount
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := n.UnmarshalJSON(raw); err != nil {
			return err
		}
		label, _ := kt.(string)
		out = append(out, LinkLabelCount{Label: label, Count: int64(n)})
	}
	*t = out
	return nil
}

// Map returns the ranking as a map from label to count.
func (t LinkTopList) Map() map[string]int64 {
	m := make(map[string]int64, len(t))
	for _, lc := range t {
		m[lc.Label] = lc.Count
	}
	return m
}

// LinkStats is the statistics block of a short link or a QR code.
type LinkStats struct {
	Clicks       int64 `json:"clicks"`
	UniqueClicks int64 `json:"uniqueClicks"`
	// The tops rank labels (countries, referrers, browsers, operating
	// systems) by count, highest first.
	TopCountries LinkTopList     `json:"topCountries"`
	TopReferrers LinkTopList     `json:"topReferrers"`
	TopBrowsers  LinkTopList     `json:"topBrowsers"`
	TopOs        LinkTopList     `json:"topOs"`
	SocialCount  LinkSocialCount `json:"socialCount"`
}

// LinkSocialCount is the visits from each social network.
type LinkSocialCount struct {
	Facebook  int64 `json:"facebook"`
	Twitter   int64 `json:"twitter"`
	Instagram int64 `json:"instagram"`
}
