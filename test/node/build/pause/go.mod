// The pod sandbox's pause process, built here so the node never pulls
// registry.k8s.io/pause: it only has to sleep, reap orphans and exit on a signal.
module herald.dev/test/node/build/pause

go 1.24.0
