package main

import "github.com/urfave/cli/v2"

var checkCommand = &cli.Command{Name: "check", Usage: "TODO"}
