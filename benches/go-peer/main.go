// go-peer: the go-yaml v3 node round trip (decode stdin into a yaml.Node, encode it to stdout),
// the floor of every Go KRM function built on kyaml or the kpt SDK. A benchmark peer for
// benches/run.sh, never part of the product.
//
// Build offline (Debian golang-go, golang-gopkg-yaml.v3-dev), GOPATH mode:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o go-peer .
package main

import (
	"bufio"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"
)

func main() {
	var doc yaml.Node
	if err := yaml.NewDecoder(bufio.NewReaderSize(os.Stdin, 1<<20)).Decode(&doc); err != nil {
		fmt.Fprintln(os.Stderr, "go-peer:", err)
		os.Exit(1)
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := yaml.NewEncoder(out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		fmt.Fprintln(os.Stderr, "go-peer:", err)
		os.Exit(1)
	}
	if err := enc.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "go-peer:", err)
		os.Exit(1)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "go-peer:", err)
		os.Exit(1)
	}
}
