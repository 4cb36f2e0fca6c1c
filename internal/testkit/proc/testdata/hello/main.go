// Command hello prints its greeting, a binary for proc's own tests of
// Binaries.
package main

import "fmt"

var greeting = "hello"

func main() { fmt.Println(greeting) }
