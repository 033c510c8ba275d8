import ArgumentParser
import TideCache
import TideCore
import TideFiles
import TideRunner

/// `--cache`, `--no-cache` and `--cache-size` of `tide run`: the cache, on by default, which gives
/// a determined reply (greedy, or a fixed seed) again instead of generating it, a case that only
/// such replies decided back whole (``KeptCases``), and loads the state after a long prompt's
/// start instead of reading it again (docs/conversations.md, "What
/// was computed is not computed again").
struct CacheOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo,
          help: ArgumentHelp("Give again, without generating, each determined reply (greedy, or a fixed seed) that an earlier run "
                             + "made for the same prompt, parameters, model file, plugins and settings, and load the state after "
                             + "a long prompt's start that an earlier run read; a case that only such replies decided is given back whole. "
                             + "Kept in $TIDE_CACHE_DIR, else ~/.cache/tide/replies."))
    var cache = true

    @Option(name: .customLong("cache-size"),
            help: ArgumentHelp("The most the cache keeps, replies and prompt states together, e.g. 500M or 4G (default 1G); "
                               + "what was given least recently goes first.", valueName: "size"))
    var size: String?

    func validate() throws {
        if let size {
            guard !cache else { return try _ = limit(size) }
            throw ValidationError("--cache-size \(size) sizes the reply cache, which --no-cache turns off: choose one")
        }
    }

    /// `size` in bytes.
    private func limit(_ size: String) throws -> Int {
        guard let count = ByteCount(parsing: size), count.bytes > 0 else {
            throw ValidationError("--cache-size is a size such as 500M or 4G, not '\(size)'")
        }
        return count.bytes
    }

    /// The cache, opened; `nil` under `--no-cache`, or when it cannot be opened (which is
    /// said once, and the run generates every reply).
    func open() throws -> CacheStore? {
        guard cache else { return nil }
        return CacheStore.open(folder: CacheStore.standardFolder(), limit: try size.map(limit) ?? CacheStore.defaultLimit,
                               warn: {
            Terminal.warn("warning: \($0); this run generates every reply. Make the folder writable, set TIDE_CACHE_DIR to another, "
                              + "or run with --no-cache")
        })
    }

    /// What `runner` gives a case's model to keep its states after long prompts in.
    static func promptStates(_ store: CacheStore) -> @Sendable (String) -> any PromptStateStore {
        { scope in store.promptStates(scope) }
    }

    /// What `runner` gives a case to keep its replies in: the part of `store` whose scope is its
    /// model, plugins and settings, and how many sequences share a batch (`sequences`), which may
    /// change a reply's last bits on some machines.
    static func scope(_ store: CacheStore, sequences: Int) -> @Sendable (CaseIdentity) -> any ReplyCache {
        { identity in
            store.replies(FileDigest.of([identity.model, identity.plugins, identity.settings, "sequences \(sequences)"]))
        }
    }
}
