package kit

import (
	"flag"
	"os"
	"strconv"
)

// DefaultParallel is for a TestMain whose parallel tests each start a
// control plane and mostly wait on it: go test runs at most GOMAXPROCS
// parallel tests at once (2 here) unless -parallel says otherwise, so
// five labs that t.Parallel would overlap run two by two. It sets
// -test.parallel to $env when that is a positive number, else to n,
// unless -parallel was given, and returns the value in force.
func DefaultParallel(n int, env string) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	if v, err := strconv.Atoi(os.Getenv(env)); err == nil && v > 0 {
		n = v
	}
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if explicit {
		p, _ := strconv.Atoi(flag.Lookup("test.parallel").Value.String())
		return p
	}
	flag.Set("test.parallel", strconv.Itoa(n))
	return n
}
