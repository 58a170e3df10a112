package main

import "github.com/urfave/cli/v2"

var statusCommand = &cli.Command{Name: "status", Usage: "TODO"}
