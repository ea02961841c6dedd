// The reference for tests/re2_differential.rs: Go's regexp, which cel-go's `matches` compiles
// patterns with. Each input line is a JSON object {"p": pattern, "t": [texts]}; each output
// line is {"ok": accepted, "m": [whether each text matches]}.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
)

type query struct {
	P string   `json:"p"`
	T []string `json:"t"`
}

type answer struct {
	Ok  bool   `json:"ok"`
	Err string `json:"err,omitempty"`
	M   []bool `json:"m"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var q query
		if err := json.Unmarshal(in.Bytes(), &q); err != nil {
			panic(err)
		}
		a := answer{M: []bool{}}
		if re, err := regexp.Compile(q.P); err != nil {
			a.Err = err.Error()
		} else {
			a.Ok = true
			for _, t := range q.T {
				a.M = append(a.M, re.MatchString(t))
			}
		}
		if err := enc.Encode(a); err != nil {
			panic(err)
		}
	}
	if err := in.Err(); err != nil {
		panic(err)
	}
}
