// This file defines the files-written hook: a tool that writes files
// (resolve accept, and any later writer) tells the other capabilities, and
// each may answer with what it has to say about the write — the language
// servers' new diagnostics, for one. Capabilities never import each
// other; the registry carries the hooks between them.

package rpc

import "context"

// AfterWriteFunc is told that paths under root (relative to it,
// slash-separated, as the writer's answer names them) were just written, on the writing call's goroutine and context. It returns a text
// for the writer's answer ("" when it has nothing to say) and structured
// data for it (nil for none).
type AfterWriteFunc func(ctx context.Context, root string, paths []string) (text string, data any)

// WriteReport is one capability's answer to a write.
type WriteReport struct {
	Capability string `json:"capability" jsonschema_description:"the capability that checked the written files, e.g. lsp"`
	Text       string `json:"text" jsonschema_description:"what it found, e.g. the new diagnostics the write caused"`
	Data       any    `json:"data,omitempty" jsonschema_description:"the same, structured"`
}

type afterWrite struct {
	capability string
	f          AfterWriteFunc
}

// AfterWrite registers f to be told of every write a tool reports with
// [FilesWritten]. capability names the answers.
func (r *Registry) AfterWrite(capability string, f AfterWriteFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.afterWrite = append(r.afterWrite, afterWrite{capability, f})
}

// FilesWritten tells every registered hook that the tool serving ctx wrote
// paths under root, and returns their answers (those with something to
// say), in registration order. Outside a session it returns nil.
func FilesWritten(ctx context.Context, root string, paths []string) []WriteReport {
	s := SessionFrom(ctx)
	if s == nil || len(paths) == 0 {
		return nil
	}
	r := s.srv.reg
	r.mu.Lock()
	hooks := append([]afterWrite(nil), r.afterWrite...)
	r.mu.Unlock()
	var out []WriteReport
	for _, h := range hooks {
		if text, data := h.f(ctx, root, paths); text != "" || data != nil {
			out = append(out, WriteReport{Capability: h.capability, Text: text, Data: data})
		}
	}
	return out
}
