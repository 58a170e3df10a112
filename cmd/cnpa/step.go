package main

import (
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/timeline"
	"github.com/labhub/cnpa/internal/ui"
)

var stepCommand = &cli.Command{
	Name:         "step",
	Usage:        "run lab step 1..8, or all of them, and write its evidence",
	ArgsUsage:    "1..8|all",
	BashComplete: completeStep,
	Description: "Each step drives the cluster as LAB.md says, shows each observed value beside\n" +
		"the expected one, and writes its JSON evidence under --dir. `all` runs 1..8 and\n" +
		"stops at the first failure (exit 1).",
	Flags: append([]cli.Flag{
		&cli.BoolFlag{Name: "explain", Usage: "print the step's teaching text, as cnpa explain N does, before running it"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "hide the kubectl commands each step shows for what it does, the server's answers and the files installed"},
		&cli.BoolFlag{Name: "force", Usage: "write crd.yaml, alpha.yaml, beta.yaml and evidence files even over files of yours, keeping each as <name>.bak-<time> (never reconcile.sh)"},
		&cli.DurationFlag{Name: "catchup-wait", Value: 8 * time.Second, Usage: "how long step 7 waits with the service stopped (8s is the lab's number)", Action: positive("catchup-wait")},
	}, labEnvFlags...),
	Action: func(c *cli.Context) error {
		if c.NArg() != 1 {
			return usageError("step needs one argument: a step number 1..8 or `all`")
		}
		numbers, err := stepNumbers(c.Args().First())
		if err != nil {
			return err
		}
		out, err := output(c, "text", "json")
		if err != nil {
			return err
		}
		env, err := labEnv(c)
		if err != nil {
			return err
		}
		p := printer(c)
		if out == "text" && !c.Bool("quiet") {
			env.Show = p
		}
		var results []*steps.Result
		failedStep := 0
		for _, n := range numbers {
			s, _ := steps.Get(n)
			if out == "text" && c.Bool("explain") {
				text, _ := steps.Explain(n)
				p.Line("%s", text)
			}
			if out == "text" {
				p.Title("Step %d — %s", s.Number, s.Title)
				p.Note("%s", s.Teaches)
			}
			r, err := s.Run(c.Context, env, s)
			if err != nil {
				if out == "json" {
					results = append(results, &steps.Result{Step: n, Title: s.Title, Notes: []string{"error: " + err.Error()}})
				}
				// The error may quote the cluster (the API server echoes a
				// value): data, not terminal commands.
				fmt.Fprintf(os.Stderr, "step %d failed: %s\n", n, ui.CleanLines(err.Error()))
				failedStep = n
				break
			}
			results = append(results, r)
			if out == "text" {
				printResult(p, r)
			}
			if !r.OK() {
				failedStep = n
				break
			}
		}
		if out == "json" {
			if err := ui.WriteJSON(os.Stdout, results); err != nil {
				return err
			}
		}
		if failedStep > 0 {
			return failed()
		}
		return nil
	},
}

func printResult(p *ui.Printer, r *steps.Result) {
	for _, n := range r.Notes {
		p.Line("  %s", ui.CleanLines(n))
	}
	for _, v := range r.Verdicts {
		p.Verdict(v.OK, v.Name, v.Got, v.Want)
	}
	timeline.Print(p, r.Timeline)
	if r.File != "" {
		verb := "wrote"
		if r.Kept {
			verb = "kept"
		}
		p.Line("  %s %s", verb, r.File)
	}
	p.Line("")
}
