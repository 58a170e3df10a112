package report

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/labhub/cnpa/internal/timeline"
	"github.com/labhub/cnpa/internal/ui"
)

// Chart is one timeline laid out as an SVG drawing: x is the time since
// the learner's action, one horizontal lane per actor. Every coordinate
// is computed here, so the template only places what it is given.
type Chart struct {
	Width, Height int
	// Left and Right bound the plotting area; Top and Bottom the lanes.
	Left, Right, Top, Bottom float64
	// ZeroX is where the learner's action is.
	ZeroX float64
	// Log is true when the axis is logarithmic (see useLog).
	Log   bool
	Lanes []Lane
	Ticks []Tick
	Marks []Mark
}

// Lane is one actor's row: Actor as the timeline records it, Words as
// the page says it (timeline.ActorWords).
type Lane struct {
	Y     float64
	Actor string
	Words string
	Class string
}

// Tick is one labelled time on the axis.
type Tick struct {
	X     float64
	Label string
}

// Mark is one entry on its lane: a numbered dot, with the whole entry as
// its tooltip and in the table below the chart.
type Mark struct {
	X, Y  float64
	N     int
	Class string
	Title string
}

// Row is one entry of the table below the chart.
type Row struct {
	N      int
	At     string
	Actor  string
	Class  string
	What   string
	Source string
}

// chart geometry, in SVG user units (the page scales it to its width).
const (
	chartWidth  = 960
	laneLeft    = 150 // room for the actor names
	laneRight   = 24
	laneHeight  = 64
	chartTop    = 16
	axisHeight  = 40
	markRadius  = 9
	markSpacing = 2*markRadius + 2 // closer dots on one lane are stacked
)

// actorOrder puts the learner first and the usual actors in the order
// they act; others follow in order of appearance.
var actorOrder = []string{timeline.You, timeline.APIServer, timeline.Controller, timeline.GarbageCollector}

// actorClasses are the CSS classes (colours) of the usual actors; any other
// actor (the namespace controller, the service manager, …) gets one of
// otherClasses by its order on the chart, so lanes stay apart in colour.
var (
	actorClasses = map[string]string{
		timeline.You: "a-you", timeline.Controller: "a-controller",
		timeline.GarbageCollector: "a-gc", timeline.APIServer: "a-api",
	}
	otherClasses = []string{"a-o1", "a-o2", "a-o3", "a-o4"}
)

// layout lays tl out; entries must be sorted by time (timeline.Sorted).
func layout(tl *timeline.Timeline) (*Chart, []Row) {
	var actors []string
	seen := map[string]bool{}
	for _, a := range actorOrder {
		for _, e := range tl.Entries {
			if e.Actor == a && !seen[a] {
				seen[a] = true
				actors = append(actors, a)
			}
		}
	}
	for _, e := range tl.Entries {
		if !seen[e.Actor] {
			seen[e.Actor] = true
			actors = append(actors, e.Actor)
		}
	}
	// The actors' names are right-aligned left of the lanes: room for the
	// widest, said in the chosen language (a Japanese character is two
	// columns, about a 12px font's width).
	left := float64(laneLeft)
	for _, a := range actors {
		left = max(left, 18+6.5*float64(ui.Width(timeline.ActorWords(a))))
	}
	c := &Chart{Width: chartWidth, Left: left, Right: chartWidth - laneRight, Top: chartTop}
	laneOf := map[string]int{}
	others := 0
	for i, a := range actors {
		laneOf[a] = i
		cls, ok := actorClasses[a]
		if !ok {
			cls = otherClasses[others%len(otherClasses)]
			others++
		}
		c.Lanes = append(c.Lanes, Lane{Y: chartTop + laneHeight*(float64(i)+0.5), Actor: a, Words: timeline.ActorWords(a), Class: cls})
	}
	c.Bottom = chartTop + laneHeight*float64(len(actors))
	c.Height = int(c.Bottom) + axisHeight

	lo, hi := 0.0, 0.0 // in ms; the action (0) is always shown
	for _, e := range tl.Entries {
		ms := msOf(e.At)
		lo, hi = math.Min(lo, ms), math.Max(hi, ms)
	}
	c.Log = useLog(tl.Entries, lo, hi)
	f := func(ms float64) float64 { return ms }
	if c.Log {
		f = symlog
	}
	flo, fhi := f(lo), f(hi)
	if fhi-flo < 1e-9 {
		fhi = flo + 1 // one instant: any scale will do
	}
	// A margin on both ends keeps dots off the frame.
	pad := (fhi - flo) * 0.03
	flo, fhi = flo-pad, fhi+pad
	x := func(ms float64) float64 { return c.Left + (f(ms)-flo)/(fhi-flo)*(c.Right-c.Left) }
	c.ZeroX = x(0)
	for _, t := range ticks(lo, hi, c.Log) {
		c.Ticks = append(c.Ticks, Tick{X: x(t), Label: msLabel(t)})
	}

	var rows []Row
	lastX := map[int][]float64{}   // per lane, the x of each dot so far
	offsets := []float64{0, -1, 1} // a lane holds three dots one above the other
	for i, e := range tl.Entries {
		lane := laneOf[e.Actor]
		mx := x(msOf(e.At))
		// Stack a dot above or below its lane when it would cover one
		// just before it: controller and watch events often come within
		// the same millisecond.
		k := 0
		for _, px := range lastX[lane] {
			if math.Abs(px-mx) < markSpacing {
				k++
			}
		}
		lastX[lane] = append(lastX[lane], mx)
		dy := offsets[k%len(offsets)] * (2*markRadius + 1)
		at := atLabel(e.At)
		cls := c.Lanes[lane].Class
		who, what := timeline.ActorWords(e.Actor), e.Text()
		c.Marks = append(c.Marks, Mark{X: mx, Y: c.Lanes[lane].Y + dy, N: i + 1, Class: cls,
			Title: fmt.Sprintf("%s  %s: %s", at, who, what)})
		rows = append(rows, Row{N: i + 1, At: at, Actor: who, Class: cls, What: what, Source: e.Source})
	}
	return c, rows
}

// useLog tells whether a linear axis would crush the early entries: a
// garbage collection 45 s after the action next to a controller reacting
// in 4 ms. Then the axis is logarithmic (symmetric around the action):
// when the span is at least 100 ms and 50 times the earliest entry that
// is not at the action itself.
func useLog(entries []timeline.Entry, lo, hi float64) bool {
	span := math.Max(-lo, hi)
	if span < 100 {
		return false
	}
	for _, e := range entries {
		if ms := math.Abs(msOf(e.At)); ms > 0 && ms*50 <= span {
			return true
		}
	}
	return false
}

// symlog is log10 that goes through 0 and keeps the sign: 0→0, 1 ms→0.3,
// 10 ms→1.04, 1 s→3.
func symlog(ms float64) float64 {
	return math.Copysign(math.Log10(1+math.Abs(ms)), ms)
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ticks are the times labelled on the axis: powers of ten on a log axis,
// round steps (1, 2, 5 × 10ⁿ ms) on a linear one.
func ticks(lo, hi float64, log bool) []float64 {
	if log {
		out := []float64{0}
		for p := 1.0; p <= math.Max(-lo, hi)*1.0001; p *= 10 {
			if p <= hi*1.0001 {
				out = append(out, p)
			}
			if -p >= lo*1.0001 {
				out = append([]float64{-p}, out...)
			}
		}
		return out
	}
	span := hi - lo
	if span <= 0 {
		return []float64{0}
	}
	// The smallest round step that gives at most 8 intervals.
	step := math.Pow(10, math.Floor(math.Log10(span/8)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(m*step) <= 8 {
			step *= m
			break
		}
	}
	var out []float64
	for t := math.Ceil(lo/step) * step; t <= hi+step*1e-9; t += step {
		out = append(out, math.Round(t/step)*step)
	}
	return out
}

// msLabel is a tick's label: "0", "+250 ms", "+1.5 s", "−10 ms".
func msLabel(ms float64) string {
	if ms == 0 {
		return "0"
	}
	sign := "+"
	if ms < 0 {
		sign = "−"
	}
	a := math.Abs(ms)
	if a >= 1000 {
		return sign + oneDecimal(a/1000) + " s"
	}
	return sign + oneDecimal(a) + " ms"
}

// atLabel is an entry's time: whole milliseconds ("+4 ms"), and seconds
// from ten seconds on ("+45.0 s").
func atLabel(d time.Duration) string {
	ms := msOf(d)
	sign := "+"
	if ms < 0 {
		sign = "−"
	}
	a := math.Abs(ms)
	if a >= 10000 {
		return fmt.Sprintf("%s%.1f s", sign, a/1000)
	}
	return fmt.Sprintf("%s%.0f ms", sign, a)
}

// oneDecimal formats x to at most one decimal, without trailing zeros.
func oneDecimal(x float64) string {
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}
