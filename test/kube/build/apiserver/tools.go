//go:build tools

// Never compiled: the blank import only keeps k8s.io/kubernetes (and every
// package kube-apiserver needs) in go.mod/go.sum, so `go build
// k8s.io/kubernetes/cmd/kube-apiserver` resolves from this module.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
