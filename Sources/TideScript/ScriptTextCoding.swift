/// Scripts and expectations stored as the text they are written in (a run journal keeps them
/// so): encoded as their canonical spelling, decoded by the parser, so that what reads back is
/// what a script holding that text would give.
extension ConversationScript: Codable {
    /// Decodes the text of a script; one that does not parse is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try ConversationScript(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a script that does not parse: \(error)")
        }
    }

    /// Encodes the script as it replays alone: its variables' values written in
    /// (``recordingVariables()``), in the canonical spelling.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(recordingVariables().printed())
    }
}

extension Expectation: Codable {
    /// Decodes an expectation's line (`expect: contains "Paris"`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let line = try container.decode(String.self)
        let script: ConversationScript
        do {
            script = try ConversationScript(parsing: "user: .\n" + line + "\n")
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "an expectation that does not parse: \(error)")
        }
        guard let expectation = script.entries.lazy.compactMap({ entry -> Expectation? in
            if case .expectation(let expectation) = entry.item { expectation } else { nil }
        }).first else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an expectation: \(line)")
        }
        self = expectation
    }

    /// Encodes the expectation as its line.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(printed)
    }
}
