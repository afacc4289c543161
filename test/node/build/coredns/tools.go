//go:build tools

// Never compiled: keeps github.com/coredns/coredns (a main package at its
// module root) and its graph in go.mod/go.sum.
package tools

import _ "github.com/coredns/coredns"
