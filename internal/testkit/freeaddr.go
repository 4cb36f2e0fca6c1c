package testkit

import (
	"fmt"
	"math/rand/v2"
	"net"
	"testing"
)

// FreeAddr returns a loopback address whose port is free now, for a process
// that must come back on the same address after a restart (so it cannot
// listen on port 0). The port is drawn below Linux's ephemeral range
// (32768 and up), from which every listener on port 0 and every outgoing
// connection takes theirs: a process that binds it seconds later (after
// its migrations, say) does not find it taken by a parallel test.
func FreeAddr(t testing.TB) string {
	t.Helper()
	for range 100 {
		addr := fmt.Sprintf("127.0.0.1:%d", 20000+rand.IntN(12000))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue // taken
		}
		ln.Close()
		return addr
	}
	t.Fatal("no free port between 20000 and 32000 on 127.0.0.1")
	return ""
}
