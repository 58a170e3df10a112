package main

import "github.com/urfave/cli/v2"

var resetCommand = &cli.Command{Name: "reset", Usage: "TODO"}
