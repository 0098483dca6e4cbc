// This file defines the subset of the Language Server Protocol 3.17 that
// agent-tools speaks, written by hand (STYLE.md R12). Each type links to
// its definition in the specification:
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/

package lspbridge

import (
	"encoding/json"
	"slices"
)

// Position is a zero-based line and a character offset in the encoding the
// server negotiated (UTF-16 unless positionEncoding says otherwise).
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#position
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open span between two positions.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#range
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#location
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// LocationLink is what definition-like requests may answer instead of a
// Location; TargetSelectionRange is the name of the target.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#locationLink
type LocationLink struct {
	TargetURI            string `json:"targetUri"`
	TargetRange          Range  `json:"targetRange"`
	TargetSelectionRange Range  `json:"targetSelectionRange"`
}

// TextDocumentItem is an opened document.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textDocumentItem
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

// TextDocumentIdentifier names a document.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textDocumentIdentifier
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// VersionedTextDocumentIdentifier names a version of a document. In a
// TextDocumentEdit the version may be null (or 0 from gopls): the file on
// disk.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#optionalVersionedTextDocumentIdentifier
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version *int32 `json:"version"`
}

// TextDocumentPositionParams is a document and a position in it.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textDocumentPositionParams
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// ContentChange is a full-text change: we always send the whole document.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textDocumentContentChangeEvent
type ContentChange struct {
	Text string `json:"text"`
}

// DidChangeParams is the params of textDocument/didChange.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textDocument_didChange
type DidChangeParams struct {
	TextDocument   VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []ContentChange                 `json:"contentChanges"`
}

// Diagnostic is one problem the server reports. Code is a number, a string
// or absent.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#diagnostic
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity,omitempty"` // 1 error, 2 warning, 3 information, 4 hint
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// PublishDiagnosticsParams is the params of
// textDocument/publishDiagnostics; Version is set by gopls, pyright and
// clangd, not by typescript-language-server.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#publishDiagnosticsParams
type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// DocumentDiagnosticReport is the answer to a pull (textDocument/diagnostic);
// Kind is "full" or "unchanged".
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#documentDiagnosticReport
type DocumentDiagnosticReport struct {
	Kind  string       `json:"kind"`
	Items []Diagnostic `json:"items"`
}

// Hover is the answer to textDocument/hover. Contents is MarkupContent, a
// MarkedString or an array of MarkedStrings.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#hover
type Hover struct {
	Contents json.RawMessage `json:"contents"`
}

// DocumentSymbol is one node of a document's symbol tree.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#documentSymbol
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
	// Location is set instead of the ranges when the server answers with
	// SymbolInformation (flat form).
	Location *Location `json:"location,omitempty"`
}

// SymbolInformation is a workspace/symbol answer item (WorkspaceSymbol has
// the same shape for our purposes).
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#symbolInformation
type SymbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      Location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

// CodeAction is an answer item of textDocument/codeAction; a bare Command
// has a title and a command name instead of a kind.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#codeAction
type CodeAction struct {
	Title   string          `json:"title"`
	Kind    string          `json:"kind,omitempty"`
	Command json.RawMessage `json:"command,omitempty"`
}

// TextEdit replaces a range with new text.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textEdit
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// DocumentChange is one entry of WorkspaceEdit.documentChanges: a
// TextDocumentEdit, or a resource operation (Kind "create", "rename" or
// "delete").
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#workspaceEdit
type DocumentChange struct {
	Kind         string                          `json:"kind,omitempty"`
	TextDocument VersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []TextEdit                      `json:"edits"`
	URI          string                          `json:"uri,omitempty"`    // create, delete
	OldURI       string                          `json:"oldUri,omitempty"` // rename
	NewURI       string                          `json:"newUri,omitempty"` // rename
}

// WorkspaceEdit is the answer to textDocument/rename.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#workspaceEdit
type WorkspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []DocumentChange      `json:"documentChanges,omitempty"`
}

// ProgressParams is the params of $/progress; Value.Kind is "begin",
// "report" or "end" for work-done progress.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#progress
type ProgressParams struct {
	Token json.RawMessage `json:"token"`
	Value struct {
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Message string `json:"message"`
	} `json:"value"`
}

// ServerCapabilities is the subset of the initialize answer we look at.
// Providers are a bool or an options object; both mean "supported" unless
// false or null.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#serverCapabilities
type ServerCapabilities struct {
	PositionEncoding        string          `json:"positionEncoding,omitempty"`
	TextDocumentSync        json.RawMessage `json:"textDocumentSync,omitempty"`
	HoverProvider           json.RawMessage `json:"hoverProvider,omitempty"`
	DefinitionProvider      json.RawMessage `json:"definitionProvider,omitempty"`
	TypeDefinitionProvider  json.RawMessage `json:"typeDefinitionProvider,omitempty"`
	ImplementationProvider  json.RawMessage `json:"implementationProvider,omitempty"`
	ReferencesProvider      json.RawMessage `json:"referencesProvider,omitempty"`
	DocumentSymbolProvider  json.RawMessage `json:"documentSymbolProvider,omitempty"`
	WorkspaceSymbolProvider json.RawMessage `json:"workspaceSymbolProvider,omitempty"`
	CodeActionProvider      json.RawMessage `json:"codeActionProvider,omitempty"`
	RenameProvider          json.RawMessage `json:"renameProvider,omitempty"`
	DiagnosticProvider      json.RawMessage `json:"diagnosticProvider,omitempty"`
	CallHierarchyProvider   json.RawMessage `json:"callHierarchyProvider,omitempty"`
	TypeHierarchyProvider   json.RawMessage `json:"typeHierarchyProvider,omitempty"`
	ExecuteCommandProvider  *struct {
		Commands []string `json:"commands"`
	} `json:"executeCommandProvider,omitempty"`
}

// executes reports whether the server offers workspace/executeCommand
// for command.
func (c ServerCapabilities) executes(command string) bool {
	return c.ExecuteCommandProvider != nil && slices.Contains(c.ExecuteCommandProvider.Commands, command)
}

// ExecuteCommandParams is the params of workspace/executeCommand.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#workspace_executeCommand
type ExecuteCommandParams struct {
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

// supported reports whether a provider field announces support.
func supported(p json.RawMessage) bool {
	s := string(p)
	return s != "" && s != "false" && s != "null"
}

// prepareRenameSupported reports whether renameProvider has
// prepareProvider: true.
func (c ServerCapabilities) prepareRenameSupported() bool {
	var o struct {
		PrepareProvider bool `json:"prepareProvider"`
	}
	return json.Unmarshal(c.RenameProvider, &o) == nil && o.PrepareProvider
}

// saveSupported reports whether textDocumentSync asks for didSave.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textDocumentSyncOptions
func (c ServerCapabilities) saveSupported() bool {
	var o struct {
		Save json.RawMessage `json:"save"`
	}
	if json.Unmarshal(c.TextDocumentSync, &o) != nil {
		return false // a bare TextDocumentSyncKind number: no save
	}
	return supported(o.Save)
}

// symbolKinds names SymbolKind values.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#symbolKind
var symbolKinds = [...]string{"", "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number",
	"boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func symbolKind(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}

// severityNames names DiagnosticSeverity values.
var severityNames = [...]string{"", "error", "warning", "info", "hint"}

func severityName(s int) string {
	if s > 0 && s < len(severityNames) {
		return severityNames[s]
	}
	return "error" // absent: the client decides; treat as error
}

// ServerInfo is what a server says of itself in its initialize answer.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#initializeResult
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// The params of the requests and notifications agent-tools sends, and of
// its answers to the server's requests. Only the client capabilities stay
// an untyped map (clientCapabilities): they are declared data, sent as
// written, never read back.

// InitializeParams is the params of initialize. InitializationOptions is
// sent as configured, null when not.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#initializeParams
type InitializeParams struct {
	ProcessID             int               `json:"processId"`
	ClientInfo            ClientInfo        `json:"clientInfo"`
	RootURI               string            `json:"rootUri"`
	RootPath              string            `json:"rootPath"`
	WorkspaceFolders      []WorkspaceFolder `json:"workspaceFolders"`
	InitializationOptions json.RawMessage   `json:"initializationOptions"`
	Capabilities          map[string]any    `json:"capabilities"`
}

// ClientInfo is what agent-tools says of itself in initialize.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#initializeParams
type ClientInfo struct {
	Name string `json:"name"`
}

// WorkspaceFolder is a root the server serves; agent-tools sends one.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#workspaceFolder
type WorkspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// ApplyWorkspaceEditResult is the answer to workspace/applyEdit.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#applyWorkspaceEditResult
type ApplyWorkspaceEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}

// CancelParams is the params of $/cancelRequest.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#cancelRequest
type CancelParams struct {
	ID uint64 `json:"id"`
}

// DidOpenParams is the params of textDocument/didOpen.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#didOpenTextDocumentParams
type DidOpenParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// DidCloseParams is the params of textDocument/didClose.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#didCloseTextDocumentParams
type DidCloseParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// DidSaveParams is the params of textDocument/didSave, without the text
// (the server has it from didChange).
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#didSaveTextDocumentParams
type DidSaveParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// DocumentSymbolParams is the params of textDocument/documentSymbol.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#documentSymbolParams
type DocumentSymbolParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// DocumentDiagnosticParams is the params of textDocument/diagnostic (a
// pull), without identifier and previousResultId: agent-tools registers
// no identifier and asks for the full report every time.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#documentDiagnosticParams
type DocumentDiagnosticParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// ReferenceParams is the params of textDocument/references.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#referenceParams
type ReferenceParams struct {
	TextDocumentPositionParams
	Context ReferenceContext `json:"context"`
}

// ReferenceContext says whether references include the declaration.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#referenceContext
type ReferenceContext struct {
	IncludeDeclaration bool `json:"includeDeclaration"`
}

// RenameParams is the params of textDocument/rename.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#renameParams
type RenameParams struct {
	TextDocumentPositionParams
	NewName string `json:"newName"`
}

// CodeActionParams is the params of textDocument/codeAction.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#codeActionParams
type CodeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      CodeActionContext      `json:"context"`
}

// CodeActionContext is the diagnostics a code action request is about
// (an empty list, never null) and what triggered it (1: invoked).
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#codeActionContext
type CodeActionContext struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
	TriggerKind int          `json:"triggerKind"`
}

// WorkspaceSymbolParams is the params of workspace/symbol.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#workspaceSymbolParams
type WorkspaceSymbolParams struct {
	Query string `json:"query"`
}

// HierarchyItemParams is the params of the requests that expand a
// hierarchy item: callHierarchy/incomingCalls and outgoingCalls,
// typeHierarchy/supertypes and subtypes.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#callHierarchyIncomingCallsParams
type HierarchyItemParams struct {
	Item HierarchyItem `json:"item"`
}

// legacyTypeHierarchyParams is the params of clangd's own
// textDocument/typeHierarchy (before LSP 3.17): Resolve levels in
// Direction 1 (parents) or 0 (children).
// https://clangd.llvm.org/extensions#type-hierarchy
type legacyTypeHierarchyParams struct {
	TextDocumentPositionParams
	Resolve   int `json:"resolve"`
	Direction int `json:"direction"`
}
