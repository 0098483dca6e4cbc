#!/bin/sh
# fakeagent.sh is a TEST FIXTURE standing in for an agent CLI (codex exec
# --json, claude -p --output-format stream-json, amp -x --stream-json): no
# real agent CLI exists on the test machines. It behaves like one where
# agent-tools can tell: it reads its brief from stdin, edits a file in the
# current directory (the run's root), streams JSON lines on stdout (a
# system event, an assistant message, a final result message), logs to
# stderr, and honours SIGTERM.
#
# The last line of the brief steers it (vibe_send appends to the brief, so
# the latest message decides):
#   "sleep": start a child (sleep 300), write "<own pid> <child pid>" to
#            fakeagent-$AGENT_TOOLS_WORKER_ID.pids and wait until killed;
#            on SIGTERM it reports and exits 143;
#   "fail":  print to stderr and exit 3;
#   "plain": print the final message as plain text, no JSON.
# Otherwise it finishes at once with the result
#   "done: <first line of the brief> (attempt N, M lines)".
brief=$(cat)
id=${AGENT_TOOLS_WORKER_ID:-w0}
attempt=${AGENT_TOOLS_WORKER_ATTEMPT:-1}
first=$(printf '%s\n' "$brief" | head -n 1 | sed 's/\\/\\\\/g; s/"/\\"/g')
lines=$(printf '%s\n' "$brief" | wc -l | tr -d ' ')
last=$(printf '%s\n' "$brief" | tail -n 1)
event() { case $last in *plain*) ;; *) printf '%s\n' "$1" ;; esac; }
event "{\"type\":\"system\",\"subtype\":\"init\",\"worker\":\"$id\",\"attempt\":$attempt}"
echo "fakeagent $id: attempt $attempt, $lines lines of brief" >&2
printf '%s\n' "$brief" > "fakeagent-$id.txt"
event "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"editing fakeagent-$id.txt\"}]}}"
case $last in
*sleep*)
	sleep 300 &
	child=$!
	trap 'kill $child 2>/dev/null; printf "{\"type\":\"result\",\"subtype\":\"error\",\"result\":\"interrupted by SIGTERM\"}\n"; exit 143' TERM
	echo "$$ $child" > "fakeagent-$id.pids.tmp" && mv "fakeagent-$id.pids.tmp" "fakeagent-$id.pids"
	wait $child
	;;
*fail*)
	echo "fakeagent $id: failing as the brief asks" >&2
	exit 3
	;;
*plain*)
	printf 'done: %s\n(attempt %s, plain text)\n' "$first" "$attempt"
	;;
*)
	printf '{"type":"result","subtype":"success","result":"done: %s (attempt %s, %s lines)"}\n' "$first" "$attempt" "$lines"
	;;
esac
