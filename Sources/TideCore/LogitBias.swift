/// A bias added to one token's score, or to the score of each token a text tokenizes to (as
/// llama-server applies a string key of `logit_bias`), before any other sampler.
public struct LogitBias: Sendable, Hashable, Codable {
    /// What the bias applies to.
    public enum Target: Sendable, Hashable, Codable {
        /// A token id of the model.
        case token(Int32)
        /// Each token of this text (tokenized without special tokens).
        case text(String)
    }

    public var target: Target
    /// Added to the score; `-infinity` bans the tokens.
    public var bias: Double

    /// A bias.
    public init(_ target: Target, _ bias: Double) {
        self.target = target
        self.bias = bias
    }

    /// The range of a bias, as OpenAI's API has it (and `-inf`, or `false` in JSON, to ban).
    static let range = -100.0...100.0

    /// The target a key names: a token id when it is a whole number, else a text.
    static func target(_ key: String) -> Target {
        if let id = Int32(key), id >= 0, String(id) == key { return .token(id) }
        return .text(key)
    }

    /// The most biases one reply may have, counting each key (token id or text) once.
    public static let maximumCount = 1024
    /// The most bytes (UTF-8) of a text a bias names (each of its tokens is biased).
    public static let maximumTextBytes = 256

    /// The biases of a JSON value: OpenAI's map or llama-server's list of pairs; `nil` for
    /// anything else, and for more biases or longer texts than the bounds allow (a map or list
    /// over the bound is not read further).
    static func decode(_ value: ParameterValue) -> [LogitBias]? {
        switch value {
        case .map(let map):
            guard map.count <= maximumCount else { return nil }
            var biases: [LogitBias] = []
            for key in map.keys.sorted() {
                guard let bias = map[key].flatMap(LogitBias.bias), !key.isEmpty, key.utf8.count <= maximumTextBytes else { return nil }
                biases.append(LogitBias(LogitBias.target(key), bias))
            }
            return biases
        case .list(let pairs):
            guard pairs.count <= maximumCount else { return nil }
            var biases: [LogitBias] = []
            for pair in pairs {
                guard case .list(let items) = pair, items.count == 2, let bias = LogitBias.bias(items[1]) else { return nil }
                switch items[0] {
                case .number(let number):
                    guard let id = Int32(exactly: number), id >= 0 else { return nil }
                    biases.append(LogitBias(.token(id), bias))
                case .text(let text) where !text.isEmpty && text.utf8.count <= maximumTextBytes: biases.append(LogitBias(.text(text), bias))
                default: return nil
                }
            }
            return biases
        default: return nil
        }
    }

    /// A bias from JSON: a number in range, or `false` to ban.
    static func bias(_ value: ParameterValue) -> Double? {
        switch value {
        case .flag(false): -.infinity
        case .number(let number) where range.contains(number) || number == -.infinity: number
        default: nil
        }
    }
}

extension ParameterCodec where Value == [LogitBias] {
    /// OpenAI's map of token ids to biases (`{"15043": -100}`), llama-server's list of pairs
    /// (`[[15043, -100], ["Paris", false]]`) and string keys; as text, `ID=BIAS` or `TEXT=BIAS`
    /// (quoted when it holds a blank or `=`), `-inf` to ban. Written back as a map when every key
    /// is a distinct token id and no bias bans (what OpenAI takes), else as pairs.
    static var logitBias: Self {
        ParameterCodec(
            requirement: "token ids or texts, each with a bias from -100 to 100 (or -inf, false in JSON, to ban), at most "
                + "\(LogitBias.maximumCount) of them, a text of at most \(LogitBias.maximumTextBytes) bytes",
            placeholder: "token=bias",
            decode: LogitBias.decode,
            encode: { biases in
                let shown = { (bias: Double) in bias == -.infinity ? ParameterValue.flag(false) : .number(bias) }
                let ids = biases.compactMap { bias -> (String, ParameterValue)? in
                    guard case .token(let id) = bias.target, bias.bias > -.infinity else { return nil }
                    return (String(id), shown(bias.bias))
                }
                // OpenAI's map where it says the same: distinct ids, no ban.
                if ids.count == biases.count, Set(ids.map(\.0)).count == ids.count { return .map(Dictionary(uniqueKeysWithValues: ids)) }
                return .list(biases.map { bias in
                    switch bias.target {
                    case .token(let id): [.number(Double(id)), shown(bias.bias)]
                    case .text(let text): [.text(text), shown(bias.bias)]
                    }
                })
            },
            fromWords: { words in
                var pairs: [ParameterValue] = []
                for word in words {
                    guard let equals = word.lastIndex(of: "="), let bias = Double(word[word.index(after: equals)...]) else { return nil }
                    let key = word[..<equals]
                    let target: ParameterValue
                    if key.hasPrefix("\"") {
                        guard let text = ParameterText.unquoted(String(key)) else { return nil }
                        target = .text(text)
                    } else if case .token(let id) = LogitBias.target(String(key)) {
                        target = .number(Double(id))
                    } else {
                        target = .text(String(key))
                    }
                    pairs.append(.list([target, .number(bias)]))
                }
                return .list(pairs)
            },
            words: { biases in
                biases.map { bias in
                    let key = switch bias.target {
                    case .token(let id): String(id)
                    case .text(let text): QuotedString.quote(text)
                    }
                    return key + "=" + (bias.bias == -.infinity ? "-inf" : ParameterText.number(bias.bias))
                }
            },
            isRepeatable: true)
    }
}
