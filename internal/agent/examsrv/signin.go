package examsrv

import (
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Wrong passwords are counted per computer, never per username alone: a
// count per username would let a classmate lock anyone out of the exam by
// typing their username with wrong passwords, from any computer. Exam
// passwords are 8 random characters, so guessing is no threat at LAN speed;
// the limits only slow a computer that keeps trying.
const (
	// userFailures wrong passwords for one username from one computer
	// lock that username on that computer, for signInWindow.
	userFailures = 5
	// addrFailures wrong passwords from one computer, whatever the
	// usernames, lock that computer, for signInWindow.
	addrFailures = 20
	// proctorFailures wrong proctor passwords from one computer lock the
	// proctor sign-in on that computer (and only there).
	proctorFailures = 5
	signInWindow    = 5 * time.Minute
)

// signInLimits counts wrong passwords for the student and proctor
// sign-ins. The proctor lifts any lock (lockView in the proctor's state).
type signInLimits struct {
	perUser *loginLimiter // key: address + "\x00" + username
	perAddr *loginLimiter // key: address
	proctor *loginLimiter // key: address
}

func newSignInLimits() signInLimits {
	return signInLimits{
		perUser: newLoginLimiter(userFailures, signInWindow),
		perAddr: newLoginLimiter(addrFailures, signInWindow),
		proctor: newLoginLimiter(proctorFailures, signInWindow),
	}
}

// blocked returns how long a student sign-in for user from addr must wait.
func (l signInLimits) blocked(addr, user string, now time.Time) time.Duration {
	return max(l.perAddr.Blocked(addr, now), l.perUser.Blocked(addr+"\x00"+user, now))
}

// fail counts a wrong password for user from addr.
func (l signInLimits) fail(addr, user string, now time.Time) {
	l.perAddr.Fail(addr, now)
	l.perUser.Fail(addr+"\x00"+user, now)
}

// success forgets the wrong passwords for user from addr.
func (l signInLimits) success(addr, user string) { l.perUser.Reset(addr + "\x00" + user) }

// lockView is a lock as the proctor sees it: a username locked on one
// computer, or (no username) a whole computer.
type lockView struct {
	Address  string    `json:"address"`
	Username string    `json:"username,omitempty"`
	Until    time.Time `json:"until"`
}

// locks lists the student sign-in locks in force at now, by address then
// username.
func (l signInLimits) locks(now time.Time) []lockView {
	out := []lockView{}
	for k, until := range l.perUser.Blocking(now) {
		addr, user, _ := strings.Cut(k, "\x00")
		out = append(out, lockView{Address: addr, Username: user, Until: until.UTC()})
	}
	for addr, until := range l.perAddr.Blocking(now) {
		out = append(out, lockView{Address: addr, Until: until.UTC()})
	}
	slices.SortFunc(out, func(a, b lockView) int {
		return strings.Compare(a.Address+"\x00"+a.Username, b.Address+"\x00"+b.Username)
	})
	return out
}

// liftUser lifts every lock of user, on every computer, and reports
// whether there was one.
func (l signInLimits) liftUser(user string, now time.Time) bool {
	lifted := false
	for k := range l.perUser.Blocking(now) {
		if _, u, _ := strings.Cut(k, "\x00"); u == user {
			l.perUser.Reset(k)
			lifted = true
		}
	}
	return lifted
}

// liftAddress lifts the locks of one computer (its own and those of every
// username on it) and reports whether there was one.
func (l signInLimits) liftAddress(addr string, now time.Time) bool {
	_, lifted := l.perAddr.Blocking(now)[addr]
	l.perAddr.Reset(addr)
	for k := range l.perUser.Blocking(now) {
		if a, _, _ := strings.Cut(k, "\x00"); a == addr {
			l.perUser.Reset(k)
			lifted = true
		}
	}
	return lifted
}

// clientAddr is the address of the computer a request comes from. The
// exam server faces the lab's LAN directly, with no proxy in between, so
// forwarding headers are never trusted.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
