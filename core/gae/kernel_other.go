//go:build !amd64 || purego

package gae

// runKernel computes p with the portable Go kernel, the only one on
// architectures without an assembly kernel or with the purego build tag.
func runKernel(_ kernelID, p *panel) bool { return gaePanelGo(p) }

// availableKernels lists the kernels this build can run.
func availableKernels() []kernelID { return []kernelID{kernelGo} }
