package respond

import "context"

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxClientIP
)

// WithRequestID returns ctx carrying the request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxRequestID, id)
}

// RequestID returns the request id of ctx, "" when none.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

// WithClientIP returns ctx carrying the client's address.
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, ctxClientIP, ip)
}

// ClientIP returns the client's address of ctx, as the router's middleware
// resolved it (trusted proxies considered), "" when none.
func ClientIP(ctx context.Context) string {
	ip, _ := ctx.Value(ctxClientIP).(string)
	return ip
}
