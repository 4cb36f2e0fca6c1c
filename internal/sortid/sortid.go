// Package sortid makes the identifiers of the portal's records: unguessable, and
// sorting by creation time as strings.
package sortid

import (
	"crypto/rand"
	"encoding/binary"
	"sync"
	"time"
)

// Length is the length of the identifiers made by New.
const Length = 26

// idAlphabet is Crockford's base32 alphabet in lower case (no i, l, o, u).
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// idState keeps the last identifier made, so that identifiers made by this
// process are strictly increasing even within one millisecond or when the
// clock steps back.
var idState struct {
	sync.Mutex
	ms     uint64 // 48-bit Unix milliseconds of the last identifier
	hi     uint16 // the 80 random bits of the last identifier: hi (16) ‖ lo (64)
	lo     uint64
	seeded bool
}

// New returns a new identifier: 26 lowercase characters of Crockford's
// base32 encoding 48 bits of Unix time in milliseconds followed by 80 random
// bits, like a ULID. Identifiers sort by creation time as strings; those made
// by one process are strictly increasing (within a millisecond the random part
// grows by a random step of 1..2^32), and they stay unguessable.
func New() string {
	var rnd [10 + 4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		panic("sortid: crypto/rand failed: " + err.Error()) // never happens since Go 1.24
	}
	now := uint64(time.Now().UnixMilli()) & (1<<48 - 1)

	idState.Lock()
	defer idState.Unlock()
	s := &idState
	if !s.seeded || now > s.ms {
		s.ms, s.seeded = now, true
		s.hi = binary.BigEndian.Uint16(rnd[0:2])
		s.lo = binary.BigEndian.Uint64(rnd[2:10])
	} else {
		// Same millisecond, or the clock went back: keep the last time and
		// step the random part forward.
		step := uint64(binary.BigEndian.Uint32(rnd[10:14])) + 1
		lo := s.lo + step
		if lo < s.lo { // carry
			s.hi++
			if s.hi == 0 { // 80-bit overflow: move to the next millisecond
				s.ms = (s.ms + 1) & (1<<48 - 1)
			}
		}
		s.lo = lo
	}
	return encodeID(s.ms, s.hi, s.lo)
}

// encodeID encodes 48 bits of milliseconds and 80 bits of randomness (hi ‖ lo)
// as 26 base32 characters, most significant first (the first character
// carries 3 bits, so it is at most '7').
func encodeID(ms uint64, hi uint16, lo uint64) string {
	var out [Length]byte
	// 130 bits of output for 128 bits of input: the value is ms ‖ hi ‖ lo,
	// with 2 leading zero bits.
	// Time: 10 characters, 50 bits, of which the top 2 are zero.
	for i := 9; i >= 0; i-- {
		out[i] = idAlphabet[ms&31]
		ms >>= 5
	}
	// Randomness: 16 characters, 80 bits = hi (16) ‖ lo (64).
	for i := Length - 1; i >= 10; i-- {
		out[i] = idAlphabet[lo&31]
		lo = lo>>5 | uint64(hi)<<59
		hi >>= 5
	}
	return string(out[:])
}
