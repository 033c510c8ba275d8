import Foundation
import TideCore
import TideLlama
import TideRemote

/// Prompt-lookup drafting through `tide serve`: two servers of four sequences each, one started
/// with `--draft off` and one with `--draft lookup`, asked the same greedy replies by 1 and by 4
/// clients at once (a copying prompt: repeat a text of about 300 words). The two servers alternate
/// every round; each figure is the median of its paired ratios of throughput (the clients' tokens
/// after the first over the round's time).
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
        /// Whether the two servers gave different text in any round.
        var differs: Bool
    }

    func run() async throws -> [Figure] {
        let plain = try await server(drafting: .off)
        defer { plain.stop() }
        let drafting = try await server(drafting: .lookup)
        defer { drafting.stop() }
        let prompt = DraftBenchmark.prompts[0].text
        var figures: [Figure] = []
        for clients in Self.clientCounts {
            var plainRates: [Double] = [], draftedRates: [Double] = [], ratios: [Double] = []
            var differs = false
            for round in 0..<rounds {
                var rates: [DraftMode: Double] = [:]
                var texts: [DraftMode: [String]] = [:]
                for (draft, server) in round % 2 == 0 ? [(DraftMode.off, plain), (.lookup, drafting)] : [(.lookup, drafting), (.off, plain)] {
                    let (replies, rate) = try await ask(server, prompt, clients: clients)
                    rates[draft] = rate
                    texts[draft] = replies
                }
                differs = differs || texts[.off] != texts[.lookup]
                plainRates.append(rates[.off] ?? 0)
                draftedRates.append(rates[.lookup] ?? 0)
                ratios.append((rates[.lookup] ?? 0) / max(rates[.off] ?? 1, 1e-9))
            }
            figures.append(Figure(clients: clients, plainTokensPerSecond: median(plainRates),
                                  draftedTokensPerSecond: median(draftedRates), ratio: median(ratios), differs: differs))
        }
        return figures
    }

    /// A server of four sequences drafting as `draft` says.
    private func server(drafting draft: DraftMode) async throws -> ServeProcess {
        try await ServeProcess(executable: executable, arguments: ["--model", model.path, "--parallel", "4", "--draft", draft.rawValue,
                                                                   "--ctx-size", "2048"] + (threads.map { ["--threads", "\($0)"] } ?? []),
                               portOffset: draft == .off ? 0 : 3)
    }

    /// `clients` greedy replies to `prompt` at once: their texts, and the tokens after each one's
    /// first per second of the round.
    private func ask(_ server: ServeProcess, _ prompt: String, clients: Int) async throws -> ([String], Double) {
        var greedy = GenerationParameters()
        greedy.temperature = 0
        greedy.maxTokens = tokens
        let parameters = greedy
        let start = ContinuousClock.now
        let replies = try await withThrowingTaskGroup(of: (Int, CollectedReply).self) { group in
            for client in 0..<clients {
                group.addTask {
                    let backend = RemoteBackend(url: server.url, model: "served")
                    let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
                    return (client, try await session.reply(to: prompt).collect())
                }
            }
            var replies: [(Int, CollectedReply)] = []
            for try await reply in group { replies.append(reply) }
            return replies.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let seconds = (ContinuousClock.now - start).seconds
        let generated = replies.reduce(0) { $0 + max(0, ($1.summary?.statistics.generatedTokens ?? 0) - 1) }
        return (replies.map(\.text), seconds > 0 ? Double(generated) / seconds : 0)
    }
}
