#!/usr/bin/env bash
# install-tools.sh installs every external tool agent-tools and its tests use.
#
# It is idempotent: each step checks first and does nothing when the tool is
# already there at the wanted version, so a second run is quiet and fast.
# Registries used: the Go module proxy (go install), Debian apt, npm.
#
# Environment:
#   AGENT_TOOLS_SKIP_APT=1   skip the apt step (no root, or a machine you manage)
#   VERBOSE=1                show the installers' own output
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GOBIN="$(go env GOPATH)/bin"
export PATH="$GOBIN:$PATH"

GOPLS_VERSION=v0.23.0
DLV_VERSION=v1.27.2
STATICCHECK_VERSION=v0.8.2 # 2026.2.2; make vet runs it
TSLS_VERSION=5.3.0
PYRIGHT_VERSION=1.1.414 # lspbridge pulls its diagnostics (textDocument/diagnostic by dynamic registration)
TYPESCRIPT_VERSION=5.9
INSPECTOR_PKG=@modelcontextprotocol/inspector
TS_CLIENT_VERSION=2.4.0
TS_TASKS_VERSION=0.2.2
INSPECTOR_VERSION=0.15.0 # the last release that runs on node 20 (0.16+ needs node >= 22.7.5)
APT_PACKAGES=(clangd clang-14 g++ lldb-19 python3-debugpy python3-pandas python3-matplotlib python3-tabulate)

INSTALLED=
say() { printf 'install-tools: %s\n' "$*" >&2; }
quiet() {
	if [[ "${VERBOSE:-}" == 1 ]]; then "$@"; else
		local log; log="$(mktemp)"
		if ! "$@" >"$log" 2>&1; then cat "$log" >&2; rm -f "$log"; return 1; fi
		rm -f "$log"
	fi
}

# --- Go tools -------------------------------------------------------------
go_tool() { # name module version version-probe-regex
	local name=$1 mod=$2 ver=$3
	if [[ -x "$GOBIN/$name" ]] && go version -m "$GOBIN/$name" 2>/dev/null | grep -q "mod.*${ver}"; then
		return 0
	fi
	say "go install $mod@$ver"
	quiet go install "$mod@$ver"
	INSTALLED=1
}
go_tool gopls golang.org/x/tools/gopls "$GOPLS_VERSION"
go_tool dlv github.com/go-delve/delve/cmd/dlv "$DLV_VERSION"
go_tool staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION"

# --- Debian packages ------------------------------------------------------
if [[ "${AGENT_TOOLS_SKIP_APT:-}" != 1 ]]; then
	missing=()
	for p in "${APT_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if ((${#missing[@]})); then
		SUDO=; [[ $(id -u) == 0 ]] || SUDO=sudo
		say "apt-get install ${missing[*]}"
		quiet $SUDO apt-get update
		quiet env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
		INSTALLED=1
	fi
fi

# --- npm packages (global) ------------------------------------------------
NPM_GLOBAL_JSON="$(npm ls -g --depth=0 --json 2>/dev/null || true)"
npm_global() { # package [version-prefix]
	local pkg=$1 want=${2:-}
	local have
	have="$(printf '%s' "$NPM_GLOBAL_JSON" | node -e '
		let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{
		try{const d=JSON.parse(s).dependencies||{};const p=d[process.argv[1]];console.log(p?p.version:"")}catch{console.log("")}})' "$pkg")"
	if [[ -n "$have" && ( -z "$want" || "$have" == "$want"* ) ]]; then return 0; fi
	say "npm install -g $pkg${want:+@$want}"
	quiet npm install -g --no-fund --no-audit "$pkg${want:+@$want}"
	INSTALLED=1
}
npm_global pyright "$PYRIGHT_VERSION"
npm_global typescript "$TYPESCRIPT_VERSION"
npm_global typescript-language-server "$TSLS_VERSION"
npm_global "$INSPECTOR_PKG" "$INSPECTOR_VERSION"
# The TypeScript SDK client that speaks MCP 2026-07-28 (v2; the v1 package,
# @modelcontextprotocol/sdk, stops at 2025-11-25): cmd/agent-tools e2e.
npm_global @modelcontextprotocol/client "$TS_CLIENT_VERSION"
# Its Tasks extension client (io.modelcontextprotocol/tasks), for the task e2e.
npm_global @modelcontextprotocol/ext-tasks "$TS_TASKS_VERSION"

# --- tree-sitter grammars that are not Go modules -------------------------
# The Dart grammar ships only on npm; patterns/ compiles its src/parser.c.
DART_DIR="$ROOT/third_party/npm"
if [[ ! -f "$DART_DIR/node_modules/tree-sitter-dart/src/parser.c" ]]; then
	say "npm install tree-sitter-dart (grammar source) into third_party/npm"
	mkdir -p "$DART_DIR"
	quiet npm install --prefix "$DART_DIR" --no-save --ignore-scripts --no-fund --no-audit tree-sitter-dart
	INSTALLED=1
fi

# --- test corpora: C sources of Debian packages ---------------------------
# lspbridge's C mutation tests draw a directory of C sources at random and
# compare diagnostics on write with gcc's. The Go module cache holds few
# that compile here (go-tree-sitter's src alone, most days), so the
# upstream sources of four Debian bookworm packages are unpacked into
# third_party/debian-src: zstd, lz4, brotli, xxhash. Pinned by sha256, from
# the Debian archive's pool (the apt registry).
DEBIAN_SRC_DIR="$ROOT/third_party/debian-src"
DEBIAN_POOL=http://deb.debian.org/debian/pool/main
DEBIAN_SOURCES=(
	"libz/libzstd/libzstd_1.5.4+dfsg2.orig.tar.xz 8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953"
	"l/lz4/lz4_1.9.4.orig.tar.gz 0b0e3aa07c8c063ddf40b082bdf7e37a1562bda40a0ff5272957f3e987e0e54b"
	"b/brotli/brotli_1.0.9.orig.tar.gz f9e8d81d0405ba66d181529af42a3354f838c939095ff99930da6aa9cdf6fe46"
	"x/xxhash/xxhash_0.8.1.orig.tar.gz 3bb6b7d6f30c591dd65aaaff1c8b7a5b94d81687998ca9400082c739a690436c"
)
for entry in "${DEBIAN_SOURCES[@]}"; do
	path=${entry% *} sum=${entry##* }
	file=${path##*/}
	stamp="$DEBIAN_SRC_DIR/.$file.unpacked"
	[[ -f "$stamp" ]] && continue
	say "fetch $file (Debian source) into third_party/debian-src"
	mkdir -p "$DEBIAN_SRC_DIR"
	tmp="$(mktemp)"
	if ! curl -fsSL --retry 3 -o "$tmp" "$DEBIAN_POOL/$path"; then
		rm -f "$tmp"; say "could not download $DEBIAN_POOL/$path"; exit 1
	fi
	if [[ "$(sha256sum "$tmp" | cut -d' ' -f1)" != "$sum" ]]; then
		rm -f "$tmp"; say "$file: sha256 is not $sum"; exit 1
	fi
	tar -xf "$tmp" -C "$DEBIAN_SRC_DIR"
	rm -f "$tmp"
	touch "$stamp"
	INSTALLED=1
done

# --- per capability: each capability's extra installs go in its section ---
# lsp (issue 4)
# gopls, pyright, typescript-language-server with typescript 5.9 (7 has no
# tsserver) and clangd are installed above; rust-analyzer and dart are not
# installable here and are reported as missing by `lsp status`.
# patterns (issue 3)
# The ast-grep CLI, the peer of `make bench`'s ast_grep rows. Not global:
# the npm package also installs an `sg` shim that collides with
# shadow-utils' /usr/bin/sg (EEXIST). The registry package ships the
# prebuilt binary in @ast-grep/cli-linux-x64-gnu (no install script needed).
AST_GREP_VERSION=0.51.1
AST_GREP_DIR="$ROOT/third_party/npm/ast-grep"
AST_GREP_BIN="$AST_GREP_DIR/node_modules/@ast-grep/cli-linux-x64-gnu/ast-grep"
if [[ ! -x "$AST_GREP_BIN" ]] || [[ "$("$AST_GREP_BIN" --version 2>/dev/null)" != "ast-grep $AST_GREP_VERSION" ]]; then
	say "npm install @ast-grep/cli@$AST_GREP_VERSION into third_party/npm/ast-grep"
	mkdir -p "$AST_GREP_DIR"
	quiet npm install --prefix "$AST_GREP_DIR" --no-save --ignore-scripts --no-fund --no-audit "@ast-grep/cli@$AST_GREP_VERSION"
	INSTALLED=1
fi
# debug (issue 5)
# The adapters come from the shared steps above: dlv (go_tool), lldb-19 (lldb-dap-19 and
# lldb-server-19) and python3-debugpy (APT_PACKAGES). The Dart SDK cannot be installed here;
# the debug tool reports dart unavailable.
# eval (issue 6)
# The kernels need python3 (Debian's, with the pandas/matplotlib/tabulate
# installed above) and node; the %pip test makes a venv from Debian's
# python3, which needs ensurepip from python3-venv.
if [[ "${AGENT_TOOLS_SKIP_APT:-}" != 1 ]] && ! dpkg-query -W -f='${Status}' python3-venv 2>/dev/null | grep -q "install ok installed"; then
	SUDO=; [[ $(id -u) == 0 ]] || SUDO=sudo
	say "apt-get install python3-venv"
	quiet $SUDO apt-get update
	quiet env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends python3-venv
	INSTALLED=1
fi
# workers (issue 7)
# Nothing to install: ask_user needs only a client that declares elicitation, and the
# worker tests run workers/testdata/fakeagent.sh with /bin/sh (no agent CLI exists here).

# harness suite (issue 22)
# The four agent CLIs that cmd/agent-tools' TestHarness drives, each against
# a scripted model of its own API (internal/scriptedmodel). Pinned, in one
# folder, not global (their bins would shadow a user's own). Install scripts
# stay off (they fetch or build things we do not need); the two the CLIs
# need run on their own below.
AGENT_CLIS_DIR="$ROOT/third_party/npm/agent-clis"
AGENT_CLIS=(@anthropic-ai/claude-code@2.1.328 @openai/codex@0.169.0 @google/gemini-cli@0.61.0 opencode-ai@1.18.33)
agent_clis_missing=()
for spec in "${AGENT_CLIS[@]}"; do
	pkg=${spec%@*} want=${spec##*@}
	have="$(node -e 'try{console.log(require(process.argv[1]).version)}catch{console.log("")}' \
		"$AGENT_CLIS_DIR/node_modules/$pkg/package.json" 2>/dev/null || true)"
	[[ "$have" == "$want" ]] || agent_clis_missing+=("$spec")
done
if ((${#agent_clis_missing[@]})); then
	say "npm install ${agent_clis_missing[*]} into third_party/npm/agent-clis"
	mkdir -p "$AGENT_CLIS_DIR"
	# All four at once: a partial install would prune the others (--no-save).
	quiet npm install --prefix "$AGENT_CLIS_DIR" --no-save --ignore-scripts --no-fund --no-audit "${AGENT_CLIS[@]}"
	INSTALLED=1
fi
# Claude Code's and opencode's wrappers are placeholders until their own
# postinstall puts the platform binary in place; run just those two scripts
# (they copy from the platform package; no network).
agent_cli_postinstall() { # bin package script
	local bin=$1 pkg=$2 script=$3
	[[ -d "$AGENT_CLIS_DIR/node_modules/$pkg" ]] || return 0
	"$AGENT_CLIS_DIR/node_modules/.bin/$bin" --version >/dev/null 2>&1 && return 0
	say "$pkg: node $script (put the platform binary in place)"
	(cd "$AGENT_CLIS_DIR/node_modules/$pkg" && quiet node "$script")
	INSTALLED=1
}
agent_cli_postinstall claude @anthropic-ai/claude-code install.cjs
agent_cli_postinstall opencode opencode-ai postinstall.mjs

[[ -z "$INSTALLED" ]] || say "done"
