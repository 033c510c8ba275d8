import TideCore
import TideLlama

/// What prompt-lookup drafting gains: greedy replies decoded with drafts (``DraftMode/lookup``,
/// or ``DraftMode/always`` where the model's batches are not exact and `lookup` does not draft:
/// ``mode(for:threads:)``) against one token at a time, on prompts whose replies copy from them (repeat, correct or quote
/// a given text of about 300 words, reformat a list) and on the free-writing prompt of the decode
/// figure. Each reply starts on an empty cache of one context; the two ways alternate every
/// round, and each prompt's figure is the median of its paired ratios of decode rates.
struct DraftBenchmark {
    let model: LlamaModel
    let tokens: Int
    let rounds: Int
    let threads: Int?

    /// A text of about 300 words for the copying prompts to work on.
    static let passage = """
        The lighthouse stood on a rocky point at the edge of the harbour, where the river met the sea. Every evening \
        the keeper climbed the one hundred and twelve steps of the spiral staircase, trimmed the wick, polished the great \
        lens and lit the lamp. Ships passing in the night saw its beam sweep across the water every ten seconds, and they \
        knew where the rocks were. In winter the storms came from the west, and waves broke over the gallery, but the \
        light never went out. The keeper kept a logbook in which he wrote the weather, the ships he saw and the hours the \
        lamp burned. His wife grew vegetables in a small garden behind the tower, sheltered from the wind by a stone wall, \
        and his children walked three miles along the cliff path to the village school. Once a month a boat brought oil, \
        flour, letters and newspapers, and the family learned what had happened in the world weeks after everyone else. \
        In the spring of the great storm, a fishing boat lost its rudder and drifted towards the rocks. The keeper saw it \
        from the gallery, rowed out in the small boat with his eldest son, and brought the four fishermen safely to the \
        shore. The village gave him a silver watch, which he wore every day for the rest of his life. After forty years \
        of service he retired to a cottage near the harbour, and an automatic lamp took his place. The tower still stands \
        today, white against the grey sky, and visitors climb the same one hundred and twelve steps to look out over the \
        water where he watched for ships on so many long nights.
        """

    /// The prompts: the copying ones, then one the model paraphrases, then free writing.
    static let prompts: [(name: String, text: String, copies: Bool)] = [
        ("repeat a text", "Repeat the following text exactly, word for word:\n\n" + passage, true),
        ("correct a text", "Correct the spelling mistakes in this text and write it out again in full:\n\n"
            + passage.replacingOccurrences(of: "keeper", with: "keper").replacingOccurrences(of: "steps", with: "stpes"), true),
        ("quote a passage", "Read this text, then quote the sentences that describe the keeper's evening work and the storm:\n\n"
            + passage, true),
        ("reformat a list", "Rewrite this list as a numbered list, one item per line, keeping every word: "
            + "red apples from the north orchard, green pears from the old garden, yellow lemons from the south wall, "
            + "purple plums from the hill farm, black cherries from the river bank, orange apricots from the sunny slope, "
            + "white grapes from the long vineyard, pink peaches from the village market.", true),
        ("paraphrase a text", "Copy the following text exactly, word for word: " + tides, false),
        ("free writing", DecodeSpeedBenchmark.prompt, false),
    ]

    /// A text of about 250 words that the bundled model, asked to copy it, rewrites in its own
    /// words: a reply that drafts often and has few drafts accepted, the case where drafting
    /// could cost more than it gains.
    static let tides = """
        Tides are the regular rise and fall of the sea, caused mostly by the pull of the moon and, to a lesser degree, \
        the sun. As the earth turns, every coast passes through two bulges of water, one facing the moon and one on the \
        far side, so most shores see two high tides and two low tides each day. The time between them is a little more \
        than six hours, because the moon moves along its orbit while the earth spins. When the sun and the moon line up, \
        at new moon and full moon, their pulls add together and the tides are large; these are called spring tides. When \
        they pull at right angles, at the quarter moons, the range is smaller; these are neap tides. The shape of the coast \
        matters as much as the sky. In a wide open ocean the water may rise only a little, but in a narrow bay or an \
        estuary it can pile up many metres, as it does in the Bay of Fundy. Sailors, fishermen and harbour masters have \
        always watched the tides closely, printing tables of the hours and heights for every port. Today tide gauges and \
        satellites measure the sea level precisely, and the same forces that move the oceans also stretch the solid earth \
        and slowly lengthen the day.
        """

    /// The drafting measured on `model` with `threads`: `lookup`, the default, where batches are
    /// exact; `always` where they are not (a GPU), since `lookup` does not draft there.
    static func mode(for model: LlamaModel, threads: Int?) -> DraftMode {
        model.scoresBatchesExactly(threads: threads ?? LlamaContextOptions.coreCount) ? .lookup : .always
    }

    struct Figure: Sendable {
        var name: String
        /// The drafting measured (``mode(for:threads:)``).
        var mode: DraftMode
        var copies: Bool
        var plainTokensPerSecond: Double
        var draftedTokensPerSecond: Double
        /// The median of the paired ratios drafted / plain.
        var ratio: Double
        var generatedTokens: Int
        var drafting: DraftStatistics
        /// Whether the two ways gave different text in any round: never where batches are exact;
        /// where they are not, at a near-tie the batch reorders.
        var differs: Bool
    }

    func run() async throws -> [Figure] {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 2048, threads: threads))
        func reply(_ prompt: String, _ draft: DraftMode) async throws -> (String, GenerationStatistics) {
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = tokens
            parameters.draft = draft
            backend.clearCache()
            let session = ChatSession(backend: backend, systemPrompt: "You are a helpful assistant.", parameters: parameters)
            let collected = try await session.reply(to: prompt).collect()
            return (collected.text, collected.summary?.statistics ?? GenerationStatistics())
        }
        let drafted = Self.mode(for: model, threads: threads)
        var figures: [Figure] = []
        for prompt in Self.prompts {
            var plainRates: [Double] = [], draftedRates: [Double] = [], ratios: [Double] = []
            var drafting = DraftStatistics()
            var differs = false
            var generated = 0
            for round in 0..<rounds {
                var rates: [DraftMode: Double] = [:]
                var texts: [DraftMode: String] = [:]
                for mode in round % 2 == 0 ? [DraftMode.off, drafted] : [drafted, .off] {
                    let (text, statistics) = try await reply(prompt.text, mode)
                    rates[mode] = statistics.tokensPerSecond ?? 0
                    texts[mode] = text
                    generated = statistics.generatedTokens
                    if let stats = statistics.drafting {
                        drafting.verifications += stats.verifications
                        drafting.drafted += stats.drafted
                        drafting.accepted += stats.accepted
                    }
                }
                differs = differs || texts[.off] != texts[drafted]
                plainRates.append(rates[.off] ?? 0)
                draftedRates.append(rates[drafted] ?? 0)
                ratios.append((rates[drafted] ?? 0) / max(rates[.off] ?? 1, 1e-9))
            }
            figures.append(Figure(name: prompt.name, mode: drafted, copies: prompt.copies, plainTokensPerSecond: median(plainRates),
                                  draftedTokensPerSecond: median(draftedRates), ratio: median(ratios), generatedTokens: generated,
                                  drafting: drafting, differs: differs))
        }
        return figures
    }
}
