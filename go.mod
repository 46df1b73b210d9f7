module github.com/rlxdev/rlx

go 1.26.0

require (
	github.com/goccy/go-yaml v1.18.0
	github.com/spf13/cobra v1.10.2
	golang.org/x/sys v0.49.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
