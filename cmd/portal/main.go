// Command portal runs the exam synchronisation portal: "portal serve" serves
// the HTTP APIs, "portal migrate" prepares a PostgreSQL database and
// "portal admin" does operator tasks through the HTTP API.
//
// Run "portal help" for the commands and docs/operations.md for running it.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
