package main

import "context"

// Running under a service manager (the Windows service control manager,
// service_windows.go). The control loop is kept apart from the Windows API
// so that it is tested on every platform.

// svcRequest is what the service manager asks of the running service.
type svcRequest int

const (
	svcInterrogate svcRequest = iota // report the current state again
	svcStop                          // stop: asked by an operator or at system shutdown
)

// svcState is a state labagent reports to the service manager.
type svcState int

const (
	svcStarting svcState = iota
	svcRunning
	svcStopping
)

// serveService runs the daemon under a service manager: run is the daemon,
// returning its exit code once its context ends or it fails. serveService
// reports starting, then running; on a stop request it reports stopping and
// ends run's context. It returns run's exit code once run has returned, so
// that a daemon that fails on its own is seen as failed (and restarted by
// the recovery actions) while a requested stop is clean.
func serveService(run func(context.Context) int, requests <-chan svcRequest, report func(svcState)) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	report(svcStarting)
	done := make(chan int, 1)
	go func() { done <- run(ctx) }()
	state := svcRunning
	report(state)
	for {
		select {
		case code := <-done:
			return code
		case req := <-requests:
			switch req {
			case svcInterrogate:
				report(state)
			case svcStop:
				if state != svcStopping {
					state = svcStopping
					report(state)
					cancel()
				}
			}
		}
	}
}
