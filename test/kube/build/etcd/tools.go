//go:build tools

// Never compiled: keeps the etcd server's main package (the module root of
// go.etcd.io/etcd/server/v3) and its dependencies in go.mod/go.sum.
package tools

import _ "go.etcd.io/etcd/server/v3"
