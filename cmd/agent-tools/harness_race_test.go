//go:build race

package main

// underRace: the test binary was built with -race.
const underRace = true
