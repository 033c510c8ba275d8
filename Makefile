# The two commands of the README:
#   make run    installs what is missing, builds Tide and answers PROMPT with the bundled model
#   make test   installs what is missing and runs the test suite
PROMPT ?= What is the capital of France?

.PHONY: setup build run test bench
setup:
	@bash scripts/setup.sh

build: setup
	swift build -c release --product tide

run: build
	.build/release/tide generate "$(PROMPT)"

test: setup
	swift test

bench: build
	.build/release/tide bench
