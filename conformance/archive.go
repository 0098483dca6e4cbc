// This file defines the transcript format: parsing and formatting archives.

package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/tools/txtar"
)

// Section names. Workspace files are sections named wsPrefix + path.
const (
	sectionFlags  = "flags"
	sectionClient = "client"
	sectionServer = "server"
	wsPrefix      = "ws/"
)

// An Archive is a parsed transcript.
type Archive struct {
	// Comment is the free-text header, without its final newline.
	Comment string
	// Flags are the server's command-line flags, one word each.
	Flags []string
	// Files are the workspace files in archive order. Name is the slash
	// path below the workspace root, without the "ws/" prefix. txtar cannot
	// represent a file whose last line has no newline: Format adds one.
	Files []File
	// Client holds the client's lines in the order sent, byte for byte,
	// without newlines. A line need not be JSON.
	Client []json.RawMessage
	// Server holds the expected server messages, compact JSON.
	Server []json.RawMessage
}

// NeedsTestTools is the header line that marks a transcript recorded with
// the test-only tools of cmd/agent-tools's tests (test_echo, test_block, …)
// and only those attached: the shipped binary has neither, so such a
// transcript replays only under `go test ./cmd/agent-tools -run
// TestTranscripts`.
const NeedsTestTools = "needs: test tools"

// NeedsTestTools reports whether the header has the [NeedsTestTools] line.
func (a *Archive) NeedsTestTools() bool {
	return slices.Contains(strings.Split(a.Comment, "\n"), NeedsTestTools)
}

// A File is a workspace file of an [Archive].
type File struct {
	Name string
	Data []byte
}

// ParseFile reads and parses the transcript at path.
func ParseFile(path string) (*Archive, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Parse parses a transcript.
//
// Sections are "flags", "ws/<path>", "client" and "server"; any other name,
// and any section given twice, is an error, as is a missing client section.
// A missing server section means the server is expected to send nothing.
//
// In the flags section, each line is split into words at spaces and tabs;
// double quotes group words ("a b"), and inside them \" and \\ are escapes.
// Blank lines and lines starting with # are ignored.
//
// In the client section, each line is one message, kept byte for byte (a
// trailing \r included). Blank lines are skipped: a server ignores them, so
// they cannot be a message. A client line that looks like a txtar marker
// ("-- x --") cannot be represented.
//
// The server section is a stream of JSON values, stored compacted.
func Parse(data []byte) (*Archive, error) {
	ar := txtar.Parse(data)
	a := &Archive{Comment: strings.TrimSuffix(string(ar.Comment), "\n")}
	seen := make(map[string]bool)
	hasClient := false
	for _, f := range ar.Files {
		if seen[f.Name] {
			return nil, fmt.Errorf("duplicate section %q", f.Name)
		}
		seen[f.Name] = true
		var err error
		switch {
		case f.Name == sectionFlags:
			a.Flags, err = parseFlags(f.Data)
		case f.Name == sectionClient:
			hasClient = true
			a.Client = parseClient(f.Data)
		case f.Name == sectionServer:
			a.Server, err = parseServer(f.Data)
		case strings.HasPrefix(f.Name, wsPrefix):
			var name string
			name, err = checkWorkspacePath(strings.TrimPrefix(f.Name, wsPrefix))
			a.Files = append(a.Files, File{Name: name, Data: f.Data})
		default:
			err = errors.New(`unknown section (want "flags", "ws/<path>", "client" or "server")`)
		}
		if err != nil {
			return nil, fmt.Errorf("section %q: %w", f.Name, err)
		}
	}
	if !hasClient {
		return nil, errors.New(`missing section "client"`)
	}
	return a, nil
}

// checkWorkspacePath reports whether name is a clean relative slash path
// that stays inside the workspace.
func checkWorkspacePath(name string) (string, error) {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name ||
		name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, `\`) {
		return "", fmt.Errorf("workspace path %q must be a clean relative slash path inside the workspace", name)
	}
	return name, nil
}

func parseClient(data []byte) []json.RawMessage {
	var lines []json.RawMessage
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lines = append(lines, json.RawMessage(bytes.Clone(line)))
	}
	return lines
}

func parseServer(data []byte) ([]json.RawMessage, error) {
	var msgs []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return msgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", len(msgs)+1, err)
		}
		msgs = append(msgs, compact(raw))
	}
}

// compact returns raw, which must be valid JSON, compacted.
func compact(raw []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return json.RawMessage(bytes.Clone(raw))
	}
	return buf.Bytes()
}

// Format returns the transcript text of a. It is the inverse of [Parse]:
// Parse(a.Format()) equals a whenever a is what Parse returns (server
// messages compact, file data ending in a newline). Flags are written one
// option per line, with the words that follow an option on its line.
func (a *Archive) Format() []byte {
	ar := &txtar.Archive{}
	if a.Comment != "" {
		ar.Comment = []byte(a.Comment + "\n")
	}
	if len(a.Flags) > 0 {
		ar.Files = append(ar.Files, txtar.File{Name: sectionFlags, Data: formatFlags(a.Flags)})
	}
	for _, f := range a.Files {
		ar.Files = append(ar.Files, txtar.File{Name: wsPrefix + f.Name, Data: f.Data})
	}
	ar.Files = append(ar.Files,
		txtar.File{Name: sectionClient, Data: formatClient(a.Client)},
		txtar.File{Name: sectionServer, Data: formatServer(a.Server)})
	return txtar.Format(ar)
}

func formatClient(lines []json.RawMessage) []byte {
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// formatServer writes each message indented with tabs, one after another.
// A message that is not valid JSON is written as is.
func formatServer(msgs []json.RawMessage) []byte {
	var buf bytes.Buffer
	for _, m := range msgs {
		if err := json.Indent(&buf, m, "", "\t"); err != nil {
			buf.Write(m)
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// parseFlags splits the flags section into words.
func parseFlags(data []byte) ([]string, error) {
	var flags []string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitWords(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		flags = append(flags, words...)
	}
	return flags, nil
}

// splitWords splits line at spaces and tabs, honouring double quotes.
func splitWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord, inQuote := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inQuote && c == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\'):
			i++
			word.WriteByte(line[i])
		case c == '"':
			inQuote, inWord = !inQuote, true
		case !inQuote && (c == ' ' || c == '\t'):
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inQuote {
		return nil, errors.New("unterminated double quote")
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// formatFlags writes flags so that parseFlags reads them back: a word
// starting with "-" begins a new line.
func formatFlags(flags []string) []byte {
	var buf bytes.Buffer
	for i, f := range flags {
		switch {
		case i == 0:
		case strings.HasPrefix(f, "-"):
			buf.WriteByte('\n')
		default:
			buf.WriteByte(' ')
		}
		buf.WriteString(quoteWord(f, i == 0 || strings.HasPrefix(f, "-")))
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// quoteWord quotes w if parseFlags would not read it back as one word.
// A word that starts a line must also not start with #.
func quoteWord(w string, startsLine bool) string {
	// (Any space, not only the two splitWords splits at: the line is
	// trimmed of spaces first, so a word ending in a \v lost it.)
	if w != "" && !strings.ContainsFunc(w, unicode.IsSpace) && !strings.Contains(w, `"`) && !(startsLine && strings.HasPrefix(w, "#")) {
		return w
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(w) + `"`
}
