//go:build tools

// Never compiled: the blank imports only keep k8s.io/kubernetes (and every
// package these commands need) in go.mod/go.sum, so `go build
// k8s.io/kubernetes/cmd/kubelet` etc. resolve from this module.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
