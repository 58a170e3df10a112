package timeline

import (
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
)

// A Message is a piece of an entry's words: a catalog message with its
// placeholders, said in the language of whoever reads the timeline, or a
// text said as it is in every language (a line of the controller's log,
// the message of an Event: the cluster's and the controller's own words).
//
// An entry keeps its words twice: What, in English, for the programs and
// tests that read it (and the cnpas that know no Said); Said, the same
// words as messages, which Text says in the chosen language. As the
// actors are: the file keeps the value, people read the words.
type Message struct {
	ID   string            `json:"id,omitempty"`
	Args map[string]string `json:"args,omitempty"`
	Text string            `json:"text,omitempty"`
}

// Say is message id of the catalog (timeline.what.*) with its
// placeholders as name, value pairs.
func Say(id string, kv ...string) Message {
	m := Message{ID: id}
	if len(kv) > 0 {
		m.Args = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m.Args[kv[i]] = kv[i+1]
		}
	}
	return m
}

// Literal is text said as it is in every language.
func Literal(text string) Message { return Message{Text: text} }

// in is m in l; ok is false for a message l's catalog (and English's)
// does not have: a timeline written by another cnpa.
func (m Message) in(l i18n.Lang) (string, bool) {
	if m.ID == "" {
		return m.Text, true
	}
	if !i18n.English.Has(m.ID) {
		return "", false
	}
	args := i18n.Args{}
	for k, v := range m.Args {
		args[k] = v
	}
	return l.T(m.ID, args), true
}

// Words sets e's words: Said, and What as their English.
func (e Entry) Words(ms ...Message) Entry {
	e.Said, e.What = nil, ""
	e.AddWords(ms...)
	return e
}

// AddWords adds words to the end of e's, in Said and in What. An entry
// with a What and no Said (an earlier cnpa's, or one that needs no
// words) keeps it as the text it starts with.
func (e *Entry) AddWords(ms ...Message) {
	if len(e.Said) == 0 && e.What != "" {
		e.Said = []Message{Literal(e.What)}
	}
	var b strings.Builder
	b.WriteString(e.What)
	for _, m := range ms {
		s, _ := m.in(i18n.English)
		b.WriteString(s)
	}
	e.Said = append(e.Said, ms...)
	e.What = b.String()
}

// Text is what happened, in the chosen language: Said's messages, or What
// as recorded when the entry has none or this cnpa does not know one of
// them.
func (e Entry) Text() string {
	if len(e.Said) == 0 {
		return e.What
	}
	l := i18n.Current()
	var b strings.Builder
	for _, m := range e.Said {
		s, ok := m.in(l)
		if !ok {
			return e.What
		}
		b.WriteString(s)
	}
	return b.String()
}
