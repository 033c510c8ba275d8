import Foundation
import TideCore
import TideFormat
import TideLlama
import TideRemote

/// Prompt-lookup drafting through `tide serve`: two servers of four sequences each, one started
/// with `--draft off` and one with `--draft lookup`, asked the same greedy replies by 1 and by 4
/// clients at once: a copying reply held by a grammar to the text it repeats (about 300 words),
/// so that its words are certain whatever the scores. The two servers alternate every round;
/// each figure is the median of its paired ratios: of one client's decode rate (its tokens after
/// the first over the time since the first, as the client reads them), of four clients'
/// throughput (their tokens after the first over the round's time). Beside them, in the same
/// rounds, the command line's ratio on the same reply (an engine of one sequence in this
/// process, as `tide generate` decodes), which one client through the server is set against.
struct ServeDraftBenchmark {
    let executable: String
    let model: LlamaModel
    let tokens: Int
    let rounds: Int
    let threads: Int?

    /// The clients asking at once, per figure.
    static let clientCounts = [1, 4]

    struct Figure: Sendable {
        var clients: Int
        var plainTokensPerSecond: Double
        var draftedTokensPerSecond: Double
        /// The median of the paired ratios drafted / plain.
        var ratio: Double
        /// The command line's ratio on the same reply, in the same rounds, and its drafted decode
        /// rate (one client's figure only).
        var commandLineRatio: Double?
        var commandLineTokensPerSecond: Double?
        /// Whether the two servers gave different text in any round.
        var differs: Bool

        /// The ratio through the server over the command line's.
        var ofCommandLine: Double? { commandLineRatio.map { $0 > 0 ? ratio / $0 : 0 } }
    }

    /// The copy: repeat the passage, held by a grammar to exactly its text.
    static let prompt = DraftBenchmark.prompts[0].text
    static let format = ReplyFormat.exactly(DraftBenchmark.passage)

    func run() async throws -> [Figure] {
        let plain = try await server(drafting: .off)
        defer { plain.stop() }
        let drafted = DraftBenchmark.mode(for: model, threads: threads)
        let drafting = try await server(drafting: drafted)
        defer { drafting.stop() }
        let format = Self.format
        let commandLine = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        var figures: [Figure] = []
        for clients in Self.clientCounts {
            var plainRates: [Double] = [], draftedRates: [Double] = [], ratios: [Double] = []
            var commandLineRatios: [Double] = [], commandLineRates: [Double] = []
            var differs = false
            for round in 0..<rounds {
                var rates: [DraftMode: Double] = [:]
                var texts: [DraftMode: [String]] = [:]
                for (draft, server) in round % 2 == 0 ? [(DraftMode.off, plain), (drafted, drafting)] : [(drafted, drafting), (.off, plain)] {
                    let (replies, rate) = try await ask(server, format: format, clients: clients)
                    rates[draft] = rate
                    texts[draft] = replies
                }
                differs = differs || texts[.off] != texts[drafted]
                plainRates.append(rates[.off] ?? 0)
                draftedRates.append(rates[drafted] ?? 0)
                ratios.append((rates[drafted] ?? 0) / max(rates[.off] ?? 1, 1e-9))
                if clients == 1 {
                    var local: [DraftMode: Double] = [:]
                    for draft in round % 2 == 0 ? [DraftMode.off, drafted] : [drafted, .off] {
                        local[draft] = try await reply(on: commandLine, format: format, draft: draft).summary?.statistics.tokensPerSecond ?? 0
                    }
                    commandLineRatios.append((local[drafted] ?? 0) / max(local[.off] ?? 1, 1e-9))
                    commandLineRates.append(local[drafted] ?? 0)
                }
            }
            figures.append(Figure(clients: clients, plainTokensPerSecond: median(plainRates),
                                  draftedTokensPerSecond: median(draftedRates), ratio: median(ratios),
                                  commandLineRatio: clients == 1 ? median(commandLineRatios) : nil,
                                  commandLineTokensPerSecond: clients == 1 ? median(commandLineRates) : nil, differs: differs))
        }
        return figures
    }

    /// The copy's greedy reply on `backend`, from an empty cache.
    private func reply(on backend: any ChatBackend, format: ReplyFormat, draft: DraftMode) async throws -> CollectedReply {
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = tokens
        parameters.format = format
        parameters.draft = draft
        (backend as? LlamaBackend)?.clearCache()
        let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
        return try await session.reply(to: Self.prompt).collect()
    }

    /// A server of four sequences drafting as `draft` says.
    private func server(drafting draft: DraftMode) async throws -> ServeProcess {
        try await ServeProcess(executable: executable, arguments: ["--model", model.path, "--parallel", "4", "--draft", draft.rawValue,
                                                                   "--ctx-size", "2048"] + (threads.map { ["--threads", "\($0)"] } ?? []),
                               portOffset: draft == .off ? 0 : 3)
    }

    /// `clients` replies of the copy at once: their texts, and one client's decode rate or
    /// several clients' throughput (the tokens after each one's first per second of the round).
    private func ask(_ server: ServeProcess, format: ReplyFormat, clients: Int) async throws -> ([String], Double) {
        let start = ContinuousClock.now
        let replies = try await withThrowingTaskGroup(of: (Int, CollectedReply).self) { group in
            for client in 0..<clients {
                group.addTask {
                    (client, try await reply(on: RemoteBackend(url: server.url, model: "served"), format: format, draft: .lookup))
                }
            }
            var replies: [(Int, CollectedReply)] = []
            for try await reply in group { replies.append(reply) }
            return replies.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let seconds = (ContinuousClock.now - start).seconds
        let generated = replies.reduce(0) { $0 + max(0, ($1.summary?.statistics.generatedTokens ?? 0) - 1) }
        if clients == 1 { return (replies.map(\.text), replies.first?.summary?.statistics.tokensPerSecond ?? 0) }
        return (replies.map(\.text), seconds > 0 ? Double(generated) / seconds : 0)
    }
}
