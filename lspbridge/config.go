// This file defines the server registry: which language server handles
// which files, where its root is, and how a user overrides or adds servers
// in the lsp section of the config file.

package lspbridge

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-tools/agent-tools/internal/config"
	"github.com/rs/zerolog"
)

// ServerConfig describes one language server.
type ServerConfig struct {
	// Name identifies the server ("gopls"); a config entry with a built-in
	// name overrides that server's non-empty fields.
	Name string `json:"name"`
	// Language is what status calls it ("go", "python").
	Language string `json:"language,omitempty"`
	// Command is argv: the binary (looked up on PATH) and its arguments.
	Command []string `json:"command,omitempty"`
	// Extensions maps file extensions (".go") to LSP language ids ("go").
	Extensions map[string]string `json:"extensions,omitempty"`
	// PreferredMarkers are tried first: the nearest ancestor of the file
	// (inside the run root) holding one of them is the server's root.
	PreferredMarkers []string `json:"preferred_markers,omitempty"`
	// Markers: otherwise the nearest ancestor holding any of them.
	Markers []string `json:"markers,omitempty"`
	// InitializationOptions are sent as initialize's
	// initializationOptions.
	InitializationOptions json.RawMessage `json:"initialization_options,omitempty"`
	// Settings answer workspace/configuration: each requested section is
	// looked up in this object by its dotted name; absent sections get
	// null.
	Settings json.RawMessage `json:"settings,omitempty"`
	// Checker is the project checker `diagnostics "*"` runs in the root
	// (argv); empty means: sync every matching file through the server.
	Checker []string `json:"checker,omitempty"`
	// CheckerFormat names the checker's output parser: "gcc"
	// (file:line:col: message), "tsc", "pyright-json" or "dart-machine".
	CheckerFormat string `json:"checker_format,omitempty"`
	// Unversioned says the server publishes diagnostics without a version
	// and stays silent when they did not change
	// (typescript-language-server); it is also learnt from its first
	// publication.
	Unversioned bool `json:"unversioned,omitempty"`
	// Republishes says the server may publish twice for one version: at
	// once (what it had, restamped) and again when it has checked the new
	// content (pyright, when it pushes: one too old to be asked). Its publication is taken once it was quiet for
	// the quiet window, not at the first that carries the version;
	// typescript-language-server its syntax errors, then its semantic
	// ones (seconds later on a cold server), then its suggestions. (gopls
	// too, by default: type errors at once, its analyzers' findings
	// after its diagnosticsDelay; it is started with a delay of 0 s,
	// which makes one publication of both.)
	Republishes bool `json:"republishes,omitempty"`
	// DiagnosisProgress is the title (its start) of the work-done
	// progress with which the server announces each diagnosis pass, from
	// the change it follows to its last publication (gopls, started with
	// verboseWorkDoneProgress: "diagnosing changed files", one per change).
	// A publication that carries the version is final only once no such
	// progress is open: gopls can publish a new version's diagnostics
	// before it has diagnosed it (empty, when a pass for an earlier
	// change clears what it holds for older versions), and again after.
	DiagnosisProgress string `json:"diagnosis_progress,omitempty"`
	// DiskIncludes says the server reads the files a file includes from
	// disk, not from what it was sent (clangd's preambles): a dependent
	// diagnosed before a write may already see the write's change.
	DiskIncludes bool `json:"disk_includes,omitempty"`
	// DiagnosesDependents says the server, after a change, diagnoses the
	// files that depend on the changed one, also through other files, and
	// publishes what it finds (gopls: the packages that import the
	// changed one, and theirs): a write's answer then covers the files
	// that reach the change indirectly, and says nothing of them.
	DiagnosesDependents bool `json:"diagnoses_dependents,omitempty"`
	// DiagnosesWorkspace says each diagnosis pass the server announces
	// (DiagnosisProgress) covers every package of its workspace, and that
	// it publishes only for files with findings (gopls, with its
	// diagnosticsDelay at 0 s): after such a pass ended, a file it never
	// published for had none.
	DiagnosesWorkspace bool `json:"diagnoses_workspace,omitempty"`
	// BackgroundIndex says the server indexes the project in the
	// background after start (clangd) and announces it with work-done
	// progress: references and renames wait for it.
	BackgroundIndex bool `json:"background_index,omitempty"`
	// PullDiagnostics says the server answers textDocument/diagnostic once
	// the client declares dynamic registration for it, and then registers
	// it itself (pyright): its diagnostics are asked for, and the answer
	// comes when it has checked the content, so no wait rests on a quiet
	// window. pyright stops pushing then. A server that does not register
	// within the initialize budget is waited on as a pushing one.
	PullDiagnostics bool `json:"pull_diagnostics,omitempty"`
	// AskTSServer says the server's diagnostics are asked of tsserver
	// through the typescript.tsserverRequest command, when the server
	// offers it (typescript-language-server), rather than awaited as
	// pushes, which it stops sending for a clean file: an answer then
	// rests on its content, not on a quiet window.
	AskTSServer bool `json:"ask_tsserver,omitempty"`
	// Disabled turns a built-in server off.
	Disabled bool `json:"disabled,omitempty"`
}

// allMarkers lists the root markers in the order they are tried.
func (c *ServerConfig) allMarkers() []string {
	return append(slices.Clone(c.PreferredMarkers), c.Markers...)
}

// languageID returns the LSP language id for a path, or "" when the server
// does not handle it.
func (c *ServerConfig) languageID(path string) string {
	return c.Extensions[strings.ToLower(filepath.Ext(path))]
}

// builtinServers are the servers agent-tools knows; see the README table.
var builtinServers = []ServerConfig{
	{
		Name: "gopls", Language: "go", Command: []string{"gopls"},
		Extensions:       map[string]string{".go": "go"},
		PreferredMarkers: []string{"go.work"}, Markers: []string{"go.mod"},
		InitializationOptions: json.RawMessage(`{"diagnosticsDelay":"0s","verboseWorkDoneProgress":true}`),
		DiagnosisProgress:     "diagnosing",
		DiagnosesDependents:   true,
		DiagnosesWorkspace:    true,
		Checker:               []string{"go", "vet", "./..."}, CheckerFormat: "gcc",
	},
	{
		Name: "pyright", Language: "python", Command: []string{"pyright-langserver", "--stdio"},
		Extensions:  map[string]string{".py": "python", ".pyi": "python"},
		Markers:     []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", "pyrightconfig.json"},
		Republishes: true, PullDiagnostics: true,
		Checker: []string{"pyright", "--outputjson"}, CheckerFormat: "pyright-json",
	},
	{
		Name: "typescript-language-server", Language: "typescript/javascript", Command: []string{"typescript-language-server", "--stdio"},
		Extensions: map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
			".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript"},
		Markers:     []string{"tsconfig.json", "jsconfig.json", "package.json"},
		Unversioned: true,
		Republishes: true, // syntax errors, then semantic ones, then suggestions
		AskTSServer: true,
		Checker:     []string{"tsc", "--noEmit", "--pretty", "false"}, CheckerFormat: "tsc",
	},
	{
		Name: "clangd", Language: "c/c++", Command: []string{"clangd", "--use-dirty-headers"},
		Extensions:      map[string]string{".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp"},
		Markers:         []string{"compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt"},
		BackgroundIndex: true,
		DiskIncludes:    true,
	},
	{
		Name: "rust-analyzer", Language: "rust", Command: []string{"rust-analyzer"},
		Extensions: map[string]string{".rs": "rust"},
		Markers:    []string{"Cargo.toml"},
		Checker:    []string{"cargo", "check", "--message-format=short"}, CheckerFormat: "gcc",
	},
	{
		Name: "dart", Language: "dart", Command: []string{"dart", "language-server", "--protocol=lsp"},
		Extensions: map[string]string{".dart": "dart"},
		Markers:    []string{"pubspec.yaml"},
		Checker:    []string{"dart", "analyze", "--format=machine"}, CheckerFormat: "dart-machine",
	},
}

// Config is the lsp section of the config file, decoded by
// internal/config: snake_case keys (the camelCase ones of earlier releases
// are read with a deprecation warning), durations as Go duration strings.
type Config struct {
	// ReadyTimeout bounds how long a navigation action on a fresh server
	// waits for it to finish loading, e.g. "10s" (default).
	ReadyTimeout config.Duration `json:"ready_timeout,omitempty"`
	// RequestTimeout bounds one request to a server, e.g. "60s"
	// (default); a server that does not answer within it is stopped.
	RequestTimeout config.Duration `json:"request_timeout,omitempty"`
	// IndexTimeout bounds the wait for a server's loading and indexing
	// before references, implementation, rename and workspace symbols,
	// e.g. "30s" (default).
	IndexTimeout config.Duration `json:"index_timeout,omitempty"`
	// DiagnosticTimeout caps a wait for a file's diagnostics after a
	// change, e.g. "3s" (default); what is not published by then is
	// reported as not available yet.
	DiagnosticTimeout config.Duration `json:"diagnostic_timeout,omitempty"`
	// Servers override built-in servers by name or add new ones.
	Servers []ServerConfig `json:"servers,omitempty"`
}

// Options tune a Supervisor; nil fields and zero values take the defaults.
type Options struct {
	Servers      []ServerConfig // default: builtinServers merged with the config file
	ReadyTimeout time.Duration  // default 10 s
	InitTimeout  time.Duration  // initialize answer; default 30 s
	// RequestTimeout bounds one request (hover, definition, …): a server
	// that does not answer within it is taken to hang and is stopped, so
	// the next call starts a fresh one. Default 60 s.
	RequestTimeout time.Duration
	RetryDelay     time.Duration // after a failed start; default 30 s
	SettleWindow   time.Duration // after the first fresh publish without a version; default 200 ms
	// VersionedSettle is the settle window after a version-matched
	// publish: gopls sends its second round within a few ms. Default 10 ms.
	VersionedSettle time.Duration
	// QuietWindow: a ready server without versions that publishes nothing
	// for this long after a change has nothing new. Default 1.5 s.
	QuietWindow   time.Duration
	DiagnosticCap time.Duration // cap on a diagnostics wait while the server publishes nothing; default 3 s
	// BusyCap bounds a diagnostics wait that DiagnosticCap would end while
	// the server keeps publishing (for other files: tsserver checks the
	// open files one by one, slowly on a loaded machine): each
	// DiagnosticCap that saw a publication starts another. Default 15 s.
	BusyCap time.Duration
	// IndexTimeout bounds the wait for a server's loading and indexing
	// before references, implementation, rename and workspace symbols;
	// default 30 s. An answer given while it still runs says so.
	IndexTimeout time.Duration
	PerFileCap   int // new diagnostics shown per file on write; default 20
	// Identifiers reads files with their grammar for lsp_rename's word
	// search of the uses a server did not see; nil: a plain word search
	// (comments and strings count).
	Identifiers IdentifierFinder
}

var defaultOptions = Options{
	ReadyTimeout:    10 * time.Second,
	InitTimeout:     30 * time.Second,
	RequestTimeout:  60 * time.Second,
	RetryDelay:      30 * time.Second,
	SettleWindow:    200 * time.Millisecond,
	VersionedSettle: 10 * time.Millisecond,
	QuietWindow:     1500 * time.Millisecond,
	DiagnosticCap:   3 * time.Second,
	BusyCap:         15 * time.Second,
	IndexTimeout:    30 * time.Second,
	PerFileCap:      20,
}

func (o *Options) withDefaults() Options {
	d := defaultOptions
	if o == nil {
		d.Servers = slices.Clone(builtinServers)
		return d
	}
	r := *o
	if r.Servers == nil {
		r.Servers = slices.Clone(builtinServers)
	}
	pick := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&r.ReadyTimeout, d.ReadyTimeout)
	pick(&r.InitTimeout, d.InitTimeout)
	pick(&r.RequestTimeout, d.RequestTimeout)
	pick(&r.RetryDelay, d.RetryDelay)
	pick(&r.SettleWindow, d.SettleWindow)
	pick(&r.VersionedSettle, d.VersionedSettle)
	pick(&r.QuietWindow, d.QuietWindow)
	pick(&r.DiagnosticCap, d.DiagnosticCap)
	pick(&r.BusyCap, d.BusyCap)
	pick(&r.IndexTimeout, d.IndexTimeout)
	if r.PerFileCap <= 0 {
		r.PerFileCap = d.PerFileCap
	}
	return r
}

// ParseConfig decodes the lsp section (see internal/config: unknown keys
// are errors, old spellings are warned about as lines of log) into
// Options. A nil section gives the defaults.
func ParseConfig(section json.RawMessage, log *zerolog.Logger) (*Options, error) {
	return parseConfig(section, config.LogWarnings(log))
}

// parseConfig is ParseConfig writing deprecation warnings to warn.
func parseConfig(section json.RawMessage, warn io.Writer) (*Options, error) {
	opts := defaultOptions
	opts.Servers = slices.Clone(builtinServers)
	c := Config{
		ReadyTimeout:      config.Duration(opts.ReadyTimeout),
		RequestTimeout:    config.Duration(opts.RequestTimeout),
		IndexTimeout:      config.Duration(opts.IndexTimeout),
		DiagnosticTimeout: config.Duration(opts.DiagnosticCap),
	}
	if err := config.Decode("lsp", section, &c, warn); err != nil {
		return nil, err
	}
	opts.ReadyTimeout, opts.RequestTimeout = c.ReadyTimeout.D(), c.RequestTimeout.D()
	opts.IndexTimeout, opts.DiagnosticCap = c.IndexTimeout.D(), c.DiagnosticTimeout.D()
	for i, s := range c.Servers {
		if s.Name == "" {
			return nil, fmt.Errorf("config lsp.servers[%d]: a server needs a name", i)
		}
		j := slices.IndexFunc(opts.Servers, func(b ServerConfig) bool { return b.Name == s.Name })
		if j < 0 {
			if len(s.Command) == 0 || len(s.Extensions) == 0 || len(s.allMarkers()) == 0 {
				return nil, fmt.Errorf("config lsp.servers[%d]: new server %q needs command, extensions and markers", i, s.Name)
			}
			opts.Servers = append(opts.Servers, s)
			continue
		}
		opts.Servers[j] = mergeServer(opts.Servers[j], s)
	}
	return &opts, nil
}

// mergeServer overrides base's fields with the non-empty fields of o.
func mergeServer(base, o ServerConfig) ServerConfig {
	if o.Language != "" {
		base.Language = o.Language
	}
	if len(o.Command) > 0 {
		base.Command = o.Command
	}
	if len(o.Extensions) > 0 {
		base.Extensions = maps.Clone(o.Extensions)
	}
	if len(o.PreferredMarkers) > 0 || len(o.Markers) > 0 {
		base.PreferredMarkers, base.Markers = o.PreferredMarkers, o.Markers
	}
	if len(o.InitializationOptions) > 0 {
		base.InitializationOptions = o.InitializationOptions
	}
	if len(o.Settings) > 0 {
		base.Settings = o.Settings
	}
	base.Unversioned = base.Unversioned || o.Unversioned
	base.Republishes = base.Republishes || o.Republishes
	base.PullDiagnostics = base.PullDiagnostics || o.PullDiagnostics
	base.DiskIncludes = base.DiskIncludes || o.DiskIncludes
	base.DiagnosesDependents = base.DiagnosesDependents || o.DiagnosesDependents
	base.DiagnosesWorkspace = base.DiagnosesWorkspace || o.DiagnosesWorkspace
	base.AskTSServer = base.AskTSServer || o.AskTSServer
	if o.DiagnosisProgress != "" {
		base.DiagnosisProgress = o.DiagnosisProgress
	}
	base.BackgroundIndex = base.BackgroundIndex || o.BackgroundIndex
	if len(o.Checker) > 0 {
		base.Checker, base.CheckerFormat = o.Checker, o.CheckerFormat
	}
	base.Disabled = o.Disabled
	return base
}
