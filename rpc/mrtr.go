// This file defines multi round-trip requests, the stateless revision's
// way for a tool to ask the client something (a question for the person)
// without a request of its own: the call is answered input_required with
// what it needs and a requestState, and the client calls again with the
// answers and that state echoed.
//
// The requestState is ours to verify, never to trust: it is signed with
// a key only this process knows (HMAC-SHA256) and binds the tool, a
// digest of the call's arguments, a digest of each question asked, an
// expiry and a nonce used once. Nothing in it is read before its
// signature checks out, and the answers are used only for the questions
// it names.

package rpc

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// errInputRequired is what [Session.Elicit] returns inside a stateless
// tools/call whose question has no answer yet: the call is then answered
// input_required, whatever the tool made of the error.
var errInputRequired = errors.New("the question goes to the client with the result (multi round-trip request)")

// ErrInputExpired is what [Session.Elicit] returns when the client's
// answer came back after the question's deadline. It matches
// context.DeadlineExceeded.
var ErrInputExpired = fmt.Errorf("the answer came after the question's deadline: %w", context.DeadlineExceeded)

// defaultInputTTL bounds a question asked without a deadline of its own.
const defaultInputTTL = time.Hour

// inputRequest is one entry of inputRequests: a request the client serves
// on our behalf.
type inputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// elicitParams are elicitation/create's params in an input request.
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// inputRequiredResult answers a tools/call whose tool waits for input.
type inputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]inputRequest `json:"inputRequests"`
	RequestState  string                  `json:"requestState"`
}

// roundTrip is a stateless tools/call's side of the exchange: the answers
// its verified requestState lets it use, and the questions it asks.
type roundTrip struct {
	mu      sync.Mutex
	answers map[string]json.RawMessage // by key, only those the state names
	asked   map[string]string          // key → digest of the question answered
	expired bool                       // the state's deadline has passed
	n       int                        // questions asked so far in this run

	pending map[string]inputRequest
	digests map[string]string
	exp     time.Time
}

// statePayload is what a requestState carries, signed.
type statePayload struct {
	Tool   string            `json:"tool"`
	Args   string            `json:"args"`  // sha256 of the canonical arguments
	Asked  map[string]string `json:"asked"` // key → sha256 of the question
	Exp    int64             `json:"exp"`   // unix milliseconds
	Nonce  string            `json:"nonce"`
	Format int               `json:"v"`
}

func (r *roundTrip) elicit(ctx context.Context, req ElicitRequest) (*ElicitResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	key := fmt.Sprintf("ask_%d", r.n)
	p := elicitParams{Mode: "form", Message: req.Message, RequestedSchema: req.RequestedSchema}
	d := digest("elicitation/create", p)
	if a, ok := r.answers[key]; ok && r.asked[key] == d {
		if r.expired {
			return nil, ErrInputExpired
		}
		var res ElicitResult
		if err := json.Unmarshal(a, &res); err != nil || res.Action == "" {
			return nil, fmt.Errorf("the client's answer %s is not an elicitation result ({action, content?})", key)
		}
		return &res, nil
	}
	exp := time.Now().Add(defaultInputTTL)
	if dl, ok := ctx.Deadline(); ok && dl.Before(exp) {
		exp = dl
	}
	if r.pending == nil {
		r.pending, r.digests = map[string]inputRequest{}, map[string]string{}
	}
	if r.exp.IsZero() || exp.Before(r.exp) {
		r.exp = exp
	}
	r.pending[key] = inputRequest{Method: "elicitation/create", Params: p}
	r.digests[key] = d
	return nil, errInputRequired
}

// result is the input_required answer, or nil when nothing was asked.
func (r *roundTrip) result(srv *Server, tool string, args json.RawMessage) (*inputRequiredResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) == 0 {
		return nil, nil
	}
	nonce := make([]byte, 16)
	rand.Read(nonce)
	p := statePayload{Tool: tool, Args: argsDigest(args), Asked: r.digests, Exp: r.exp.UnixMilli(), Nonce: hex.EncodeToString(nonce), Format: 1}
	state, err := srv.signState(p)
	if err != nil {
		return nil, err
	}
	return &inputRequiredResult{ResultType: "input_required", InputRequests: r.pending, RequestState: state}, nil
}

// verifyRetry checks a retried call's requestState and returns the round
// trip its answers may be used in. A state that does not verify, or that
// belongs to another call, or was used before, is a protocol error: the
// answers are not used.
func (s *Session) verifyRetry(tool string, args json.RawMessage, state string, answers map[string]json.RawMessage) (*roundTrip, error) {
	r := &roundTrip{}
	if state == "" {
		if len(answers) > 0 {
			return nil, fmt.Errorf("%w: inputResponses came without the requestState they answer: call again without them to be asked again", ErrInvalidParams)
		}
		return r, nil
	}
	p, ok := s.srv.openState(state)
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: requestState does not verify (it was not issued by this server process, or it was altered): call again without inputResponses and requestState to be asked again", ErrInvalidParams)
	case p.Tool != tool || p.Args != argsDigest(args):
		return nil, fmt.Errorf("%w: requestState belongs to another call (another tool or other arguments): retry with the arguments of the call that returned it", ErrInvalidParams)
	}
	s.mu.Lock()
	now := time.Now().UnixMilli()
	for n, exp := range s.usedStates {
		if exp < now-int64(defaultInputTTL/time.Millisecond) {
			delete(s.usedStates, n)
		}
	}
	_, used := s.usedStates[p.Nonce]
	if !used {
		s.usedStates[p.Nonce] = p.Exp
	}
	s.mu.Unlock()
	if used {
		return nil, fmt.Errorf("%w: requestState was already answered once: call again without inputResponses and requestState to be asked again", ErrInvalidParams)
	}
	r.asked = p.Asked
	r.expired = now > p.Exp
	r.answers = map[string]json.RawMessage{}
	for k := range p.Asked {
		if a, ok := answers[k]; ok {
			r.answers[k] = a
		}
	}
	return r, nil
}

func (srv *Server) signState(p statePayload) (string, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(data) + "." + enc.EncodeToString(srv.mac(data)), nil
}

func (srv *Server) openState(state string) (statePayload, bool) {
	var p statePayload
	enc := base64.RawURLEncoding
	body, sig, ok := bytes.Cut([]byte(state), []byte("."))
	if !ok {
		return p, false
	}
	data, err1 := enc.DecodeString(string(body))
	mac, err2 := enc.DecodeString(string(sig))
	if err1 != nil || err2 != nil || !hmac.Equal(mac, srv.mac(data)) {
		return p, false
	}
	if json.Unmarshal(data, &p) != nil || p.Format != 1 {
		return p, false
	}
	return p, true
}

func (srv *Server) mac(data []byte) []byte {
	h := hmac.New(sha256.New, srv.stateKey[:])
	h.Write([]byte("agent-tools requestState\x00"))
	h.Write(data)
	return h.Sum(nil)
}

// argsDigest is the sha256 of the arguments in canonical form (decoded and
// encoded again: sorted keys, no spaces), so that a client that encodes
// the same arguments differently on its retry still matches.
func argsDigest(args json.RawMessage) string {
	var v any
	canon := []byte("null")
	if len(args) > 0 && json.Unmarshal(args, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

func digest(method string, params any) string {
	data, _ := json.Marshal(params)
	h := sha256.New()
	h.Write([]byte(method + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
