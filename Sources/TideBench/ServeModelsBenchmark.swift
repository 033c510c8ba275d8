import Foundation
import TideCore
import TideLlama
import TideRemote

/// A server of two models that holds one at a time (`tide serve --max-loaded 1`), asked for each
/// in turn: every request unloads the other model and loads its own, and every streamed reply is
/// cut by its client after a few tokens. The server's resident memory after 100 such cycles
/// against after the first says whether unloading frees everything; the median time of a request
/// that loads its model against one that finds it loaded, what a switch costs.
struct ServeModelsBenchmark {
    let executable: String
    let first: LlamaModel
    let second: LlamaModel
    let cycles: Int
    let threads: Int?

    struct Result: Sendable {
        var cycles: Int
        /// The server's resident memory after the first cycle and after the last.
        var residentAfterFirst: Int64
        var residentAfterLast: Int64
        /// Median seconds of a whole request that loads its model, and of one that finds it loaded.
        var switchSeconds: Double
        var loadedSeconds: Double
        /// The growth per cycle, in bytes.
        var growthPerCycle: Double { Double(residentAfterLast - residentAfterFirst) / Double(max(1, cycles - 1)) }
    }

    func run() async throws -> Result {
        let server = try await ServeProcess(executable: executable, arguments: ["--model", first.path, "--model", second.path,
                                                                                "--max-loaded", "1", "--parallel", "2", "--ctx-size", "1024"]
                                                + (threads.map { ["--threads", "\($0)"] } ?? []), portOffset: 5)
        defer { server.stop() }
        let names = [first, second].map { URL(fileURLWithPath: $0.path).deletingPathExtension().lastPathComponent }
        var switches: [Double] = []
        var loaded: [Double] = []
        var afterFirst: Int64 = 0
        for cycle in 0..<cycles {
            for name in names {
                try await cutStream(at: server.url, model: name)
                let start = ContinuousClock.now
                try await ask(at: server.url, model: name)
                loaded.append((ContinuousClock.now - start).seconds)
            }
            // The streams were cut after their model loaded; the next cycle's first request loads again.
            let start = ContinuousClock.now
            try await ask(at: server.url, model: names[0])
            switches.append((ContinuousClock.now - start).seconds)
            if cycle == 0 { afterFirst = server.residentBytes }
        }
        return Result(cycles: cycles, residentAfterFirst: afterFirst, residentAfterLast: server.residentBytes,
                      switchSeconds: median(switches), loadedSeconds: median(loaded))
    }

    /// A greedy reply of 4 tokens from `model`.
    private func ask(at url: URL, model: String) async throws {
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 4
        let session = ChatSession(backend: RemoteBackend(url: url, model: model), parameters: parameters)
        _ = try await session.reply(to: "Name a colour.").collect()
    }

    /// A streamed reply from `model` that its client leaves after its third piece of text.
    private func cutStream(at url: URL, model: String) async throws {
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 200
        let session = ChatSession(backend: RemoteBackend(url: url, model: model), parameters: parameters)
        var pieces = 0
        for try await event in session.reply(to: "Tell me a long story about the sea.") {
            if case .text = event {
                pieces += 1
                if pieces == 3 { session.cancelReply() }
            }
        }
    }
}
