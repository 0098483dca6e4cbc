package main

// harnessProject is the small real project each CLI run works in: a Go
// module whose main package has two files, a second module below it (so a
// workspace-wide symbol search is incomplete until its server runs), a
// Python file, a JavaScript file with a node_modules directory beside it.
const harnessProject = `
-- go.mod --
module example.com/proj

go 1.26
-- main.go --
package main

import "fmt"

func main() {
	msg := Shout("hello")
	fmt.Println(msg)
	fmt.Println(Shout(Shout("twice")))
	total := 0
	for i := 0; i < 3; i++ {
		total += i
	}
	fmt.Println(total)
}
-- shout.go --
package main

import "strings"

// Shout upper-cases s.
func Shout(s string) string {
	return strings.ToUpper(s) + "!"
}
-- sub/go.mod --
module example.com/sub

go 1.26
-- sub/sub.go --
package sub

// Helper is in a second module.
func Helper() int { return 1 }
-- calc.py --
def area(w, h):
    print(w, h)
    return w * h
-- app.js --
const leftpad = require('leftpad');
console.log(leftpad('x', 3));
-- node_modules/leftpad/index.js --
function leftpad(s, n) { console.log(s); return s.padStart(n); }
module.exports = leftpad;
`
