import Foundation
import Testing
import TideTestSupport
import TideCore
import TideScript

/// parse → print → parse gives the same items, on the examples and on generated scripts; no
/// input, however broken, crashes the parser.
struct RoundTripTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Conversations")

    static func exampleFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: examples, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "tide" }.sorted { $0.path < $1.path }
    }

    @Test func theExamplesRoundTrip() throws {
        let files = try Self.exampleFiles()
        #expect(files.count >= 8)
        for file in files {
            let script = try ConversationScript(contentsOf: file)
            let printed = script.printed()
            let again = try ConversationScript(parsing: printed)
            #expect(again.items == script.items, "\(file.lastPathComponent)")
            #expect(again.printed() == printed, "\(file.lastPathComponent)")
        }
    }

    @Test func generatedScriptsRoundTrip() throws {
        var random = SplitMix(seed: 20261121)
        for round in 0..<500 {
            let script = ScriptGenerator.script(using: &random)
            let printed = script.printed()
            let parsed: ConversationScript
            do {
                parsed = try ConversationScript(parsing: printed)
            } catch {
                Issue.record("round \(round): the printed script does not parse: \(error)\n\(printed)")
                continue
            }
            #expect(parsed.items == script.items, "round \(round):\n\(printed)")
            #expect(parsed.printed() == printed)
        }
    }

    @Test func randomBytesNeverCrashTheParser() {
        var random = SplitMix(seed: 7)
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<200, using: &random)).map { _ in
                // Mostly the bytes scripts are made of, so the parser gets past the first line.
                Bool.random(using: &random) ? UInt8.random(in: 0...255, using: &random)
                    : Array("@user:assistant:expect: \"\"\"\\#\n".utf8).randomElement(using: &random)!
            }
            _ = try? ConversationScript(bytes: bytes)
        }
    }

    @Test func everyTruncationOfTheExamplesIsHandled() throws {
        for file in try Self.exampleFiles() {
            let bytes = Array(try Data(contentsOf: file))
            for length in 0...bytes.count {
                // A cut inside a UTF-8 sequence or a block is an error, never a crash.
                _ = try? ConversationScript(bytes: Array(bytes[0..<length]))
            }
        }
    }
}

/// Random scripts that follow the grammar's rules on order.
enum ScriptGenerator {
    static func script(using random: inout SplitMix) -> ConversationScript {
        var items: [ScriptItem] = []
        var turns = false
        var last = "start"
        for _ in 0..<Int.random(in: 0..<25, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0: items.append(.blank)
            case 1: items.append(.comment(line(&random, allowEmpty: true)))
            case 2:
                items.append(.directive(directive(&random, beforeTurns: !turns)))
                if last != "start" { last = "directive" }
            case 3 where last == "user":
                items.append(.turn(Turn(.assistant, text(&random))))
                last = "assistant"
                if Bool.random(using: &random) {
                    let verdicts = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                        RecordedVerdict(rubric: line(&random, allowEmpty: true), passed: Bool.random(using: &random),
                                        reason: line(&random, allowEmpty: true))
                    }
                    items.append(.generated(ReplyRecord(stopReason: line(&random, allowEmpty: true),
                                                        tokens: Int.random(in: 0..<500, using: &random), verdicts: verdicts)))
                    last = "recorded"
                }
            case 4...5 where ["user", "generating", "recorded"].contains(last):
                items.append(.expectation(expectation(&random)))
                if last == "user" { last = "generating" }
            case 6:
                items.append(.turn(Turn(.system, text(&random))))
                turns = true
                last = "system"
            default:
                items.append(.turn(Turn(.user, text(&random))))
                turns = true
                last = "user"
            }
        }
        return ConversationScript(entries: items.map { ScriptEntry($0) })
    }

    static let pieces = ["a", "Paris", " ", "  ", "\t", "#", "@", "user:", "assistant:", "\"\"\"", "\"", "\\", "\\n",
                         "é", "🌊", "\u{2028}", "expect:", "x=1", "'"]

    /// Text that may hold anything but a carriage return.
    static func text(_ random: inout SplitMix) -> String {
        (0..<Int.random(in: 0..<12, using: &random)).map { _ in
            Int.random(in: 0..<6, using: &random) == 0 ? "\n" : pieces.randomElement(using: &random)!
        }.joined()
    }

    /// One line, trimmed (directive values are).
    static func line(_ random: inout SplitMix, allowEmpty: Bool = false) -> String {
        let text = (0..<Int.random(in: 1..<6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            .trimmingCharacters(in: [" ", "\t"])
        return text.isEmpty && !allowEmpty ? "value" : text
    }

    static func directive(_ random: inout SplitMix, beforeTurns: Bool) -> Directive {
        switch Int.random(in: 0..<(beforeTurns ? 10 : 7), using: &random) {
        case 0: .name(line(&random))
        case 1: .description(line(&random))
        case 2: .plugin(line(&random))
        case 3: .unload(line(&random))
        case 4: .parameter(parameter(&random))
        case 5: .parameter(ParameterSetting("stop", .list((0..<Int.random(in: 0..<3, using: &random)).map { _ in .text(text(&random) + "s") })))
        case 6: .parameter(ParameterSetting("seed", Bool.random(using: &random) ? .null : .number(Double(UInt32.random(in: 0...UInt32.max, using: &random)))))
        case 7: .model(line(&random))
        case 8: .contextSize(Int.random(in: 16...100_000, using: &random))
        default: .template(line(&random))
        }
    }

    static func parameter(_ random: inout SplitMix) -> ParameterSetting {
        switch Int.random(in: 0..<7, using: &random) {
        case 0: ParameterSetting("temperature", .number(Double.random(in: 0...2, using: &random)))
        case 1: ParameterSetting("top-k", .number(Double(Int.random(in: 0...100, using: &random))))
        case 2: ParameterSetting("top-p", .number(Double.random(in: 0.01...1, using: &random)))
        case 3: ParameterSetting("min-p", .number(Double.random(in: 0...1, using: &random)))
        case 4: ParameterSetting("repeat-penalty", .number(Double.random(in: 0.5...2, using: &random)))
        case 5: ParameterSetting("repeat-last-n", .number(Double(Int.random(in: 0...256, using: &random))))
        default: ParameterSetting("max-tokens", .number(Double(Int.random(in: 1...4096, using: &random))))
        }
    }

    static func expectation(_ random: inout SplitMix) -> TideScript.Expectation {
        let bound = CountBound(lower: Bool.random(using: &random) ? Int.random(in: 0...10, using: &random) : nil,
                               upper: Int.random(in: 10...500, using: &random))
        let similarity = MeasureBound(lower: Double(Int.random(in: -100...100, using: &random)) / 100)
        let check: TideScript.Expectation.Check = switch Int.random(in: 0..<10, using: &random) {
        case 9: .init(.judge, .text(text(&random)))
        case 0: .init(.contains, .text(text(&random)))
        case 7: .init(.similar, .textAndMeasure(text(&random), similarity))
        case 8: .init(.similarToRecorded, .measure(similarity))
        case 1: .init(.icontains, .text(text(&random)))
        case 2: .init(.regex, .text(["^The", "[0-9]+", "(?i)paris", "a|b", "\\d{3}"].randomElement(using: &random)!))
        case 3: .init(.length, .count(bound))
        case 4: .init(.tokens, .count(bound))
        case 5: .init(.stop, .text(line(&random)))
        default: .init(.lua, .text(text(&random) + "x"))
        }
        if check.kind == .lua { return Expectation(check) }
        return Expectation(check, negated: Bool.random(using: &random))
    }
}

/// Every example starts with a comment naming it and saying what it shows.
struct ExampleHeaderTests {
    @Test func everyExampleHasAHeaderComment() throws {
        for file in try RoundTripTests.exampleFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            let name = file.deletingPathExtension().lastPathComponent
            #expect(text.hasPrefix("# \(name): "), "\(file.lastPathComponent) must start with '# \(name): <what it shows>'")
            #expect(try ConversationScript(parsing: text).name == name)
        }
    }
}
