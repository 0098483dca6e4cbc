// This file defines which of our environment variables a child inherits:
// by default none that look like credentials.

package proc

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// The harness that spawns agent-tools hands it its own credentials (under
// Claude Code: ANTHROPIC_API_KEY, CLAUDE_CODE_MESSAGING_TOKEN). Everything
// we start runs code the model wrote or chose — kernels, debuggees,
// language servers that execute build scripts, workers' children — so by
// default a child gets our environment less every variable whose name
// looks like a credential (IsCredential). EnvPolicy.Pass names the ones
// to hand on anyway; Spec.Credentials names those one child needs.

// credentialSuffixes are the name endings that mark a credential. A name
// equal to a suffix without its underscore (TOKEN, API_KEY) counts too.
var credentialSuffixes = []string{
	"_KEY", "_APIKEY", // ANTHROPIC_API_KEY, AWS_SECRET_ACCESS_KEY, STRIPE_APIKEY
	"_TOKEN", "_AUTHTOKEN", // GITHUB_TOKEN, CLAUDE_CODE_MESSAGING_TOKEN, NPM_CONFIG__AUTHTOKEN
	"_SECRET", // AZURE_CLIENT_SECRET
	"_PASSWORD", "_PASSWD", "_PASSPHRASE",
	"_CREDENTIAL", "_CREDENTIALS", // GOOGLE_APPLICATION_CREDENTIALS
	"_PAT",    // AZURE_DEVOPS_EXT_PAT
	"_AUTH",   // NPM_CONFIG__AUTH
	"_COOKIE", // JUPYTER_COOKIE
	"_CONNECTION_STRING",
}

// credentialNames are credentials whose names the suffixes miss.
var credentialNames = []string{
	"AWS_ACCESS_KEY_ID", // half of a key pair: useless without the secret, and misleading
	"PGPASSWORD", "MYSQL_PWD", "SSHPASS",
	"DOCKER_AUTH_CONFIG",
}

// kept reports whether name is one a child is never denied whatever it
// looks like: the search paths, the home and locale variables, Go's own
// (GOPATH, GOFLAGS, GOPROXY, GOAUTH: no underscore), and ours.
func kept(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TZ", "TMPDIR", "PWD", "SSH_AUTH_SOCK":
		return true
	}
	return strings.HasSuffix(name, "PATH") || strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "XDG_") ||
		strings.HasPrefix(name, "AGENT_TOOLS_") || (strings.HasPrefix(name, "GO") && !strings.Contains(name, "_"))
}

// IsCredential reports whether an environment variable named name is
// withheld from children by default: its name, upper-cased, ends in one of
// _KEY, _APIKEY, _TOKEN, _AUTHTOKEN, _SECRET, _PASSWORD, _PASSWD,
// _PASSPHRASE, _CREDENTIAL(S), _PAT, _AUTH, _COOKIE or _CONNECTION_STRING
// (or is one of them without the underscore, such as TOKEN), or it is
// AWS_ACCESS_KEY_ID, PGPASSWORD, MYSQL_PWD, SSHPASS or DOCKER_AUTH_CONFIG.
// PATH-like names (…PATH), HOME, the locale and XDG variables, Go's
// GO… variables and AGENT_TOOLS_… are never withheld.
func IsCredential(name string) bool {
	n := strings.ToUpper(name)
	if kept(n) {
		return false
	}
	if slices.Contains(credentialNames, n) {
		return true
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(n, s) || n == s[1:] {
			return true
		}
	}
	return false
}

// EnvPolicy is the run-wide setting of what children inherit.
type EnvPolicy struct {
	// Pass names variables every child inherits even though they look
	// like credentials: exact names, or a prefix followed by "*"
	// ("AWS_*").
	Pass []string
	// Withheld, when set, is called at each Start that withheld variables,
	// with the child's name and the withheld names (never values): for a
	// debug log. It must not start processes.
	Withheld func(child string, names []string)
}

var envPolicy struct {
	mu sync.Mutex
	p  EnvPolicy
}

// SetEnvPolicy sets the policy for later Starts. It refuses a Pass entry
// that is not a variable name or a prefix followed by "*".
func SetEnvPolicy(p EnvPolicy) error {
	if err := CheckNames(p.Pass); err != nil {
		return err
	}
	envPolicy.mu.Lock()
	defer envPolicy.mu.Unlock()
	p.Pass = slices.Clone(p.Pass)
	envPolicy.p = p
	return nil
}

func currentEnvPolicy() EnvPolicy {
	envPolicy.mu.Lock()
	defer envPolicy.mu.Unlock()
	return envPolicy.p
}

// CheckNames checks a list of variable names or "PREFIX*" patterns.
func CheckNames(names []string) error {
	for _, n := range names {
		base := strings.TrimSuffix(n, "*")
		if base == "" && n == "*" {
			return fmt.Errorf("%q would pass every variable: name them, or give a prefix such as \"AWS_*\"", n)
		}
		if !validName(base) {
			return fmt.Errorf("%q is not an environment variable name (letters, digits and _, not starting with a digit; a trailing * makes it a prefix)", n)
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// matchesAny reports whether name is one of pats (exact, or prefix*).
func matchesAny(name string, pats []string) bool {
	for _, p := range pats {
		if pre, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, pre) {
				return true
			}
		} else if name == p {
			return true
		}
	}
	return false
}

// childEnv returns env (nil: ours) less the credentials that neither pass
// nor allow names, and the names it left out, sorted and without repeats.
func childEnv(env, pass, allow []string) (out, withheld []string) {
	if env == nil {
		env = os.Environ()
	}
	out = make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if IsCredential(name) && !matchesAny(name, pass) && !matchesAny(name, allow) {
			if !slices.Contains(withheld, name) {
				withheld = append(withheld, name)
			}
			continue
		}
		out = append(out, kv)
	}
	slices.Sort(withheld)
	return out, withheld
}

// Withheld returns the names of our environment variables a child started
// now (with no Spec.Credentials) would not inherit.
func Withheld() []string {
	_, names := childEnv(nil, currentEnvPolicy().Pass, nil)
	return names
}
