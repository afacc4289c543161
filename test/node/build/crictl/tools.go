//go:build tools

// Never compiled: keeps sigs.k8s.io/cri-tools/cmd/crictl in go.mod/go.sum.
package tools

import _ "sigs.k8s.io/cri-tools/cmd/crictl"
