import Foundation
import Testing
import TideCore
import TideFormat

extension RealModelTests {
    /// Reply formats on the real model: every reply under a schema parses and validates.
    @Suite struct StructuredOutputTests {
        /// The twenty schemas of TideFormatTests, from a flat object to recursive ones.
        static let schemas: [URL] = {
            let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("TideFormatTests/Fixtures/Schemas")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".valid.json") && !$0.hasSuffix(".invalid.json") }
                .sorted().map { folder.appendingPathComponent($0) }
        }()

        /// What to ask for a schema's document: its title or description, else its file's name.
        static func prompt(for schema: JSONValue, file: URL) -> String {
            if case .object(let object) = schema {
                for key in ["description", "title"] { if case .string(let text)? = object[key] { return "Write \(text) as JSON." } }
            }
            let words = file.deletingPathExtension().lastPathComponent.split(separator: "-").dropFirst().joined(separator: " ")
            return "Write an example \(words) as JSON."
        }

        @Test func thereAreTwentySchemas() {
            #expect(Self.schemas.count >= 20)
        }

        @Test(arguments: schemas) func everyReplyToASchemaParsesAndValidates(file: URL) async throws {
            let format = try ReplyFormat.reading(.jsonSchema, file: file.path)
            let value = try JSONValue(parsing: format.definition)
            let schema = try JSONSchema(value)
            // Greedy, with the bundled model's repetition penalty: without it, a schema that allows
            // any number of extra properties (17-settings) can loop on them to the token limit.
            let (session, _) = try TestModel.session { $0.maxTokens = 768; $0.format = format; $0.repeatPenalty = 1.1 }
            let reply = try await session.reply(to: Self.prompt(for: value, file: file)).collect()
            #expect(reply.summary?.stopReason == .endOfGeneration, "\(file.lastPathComponent): \(reply.text)")
            let document = try JSONValue(parsing: reply.text)
            #expect(schema.violations(of: document).isEmpty, "\(file.lastPathComponent): \(schema.violations(of: document)) in \(reply.text)")
            #expect(format.problem(with: reply.text, stopReason: reply.summary!.stopReason) == nil)
        }

        @Test func jsonGivesOneObject() async throws {
            let (session, _) = try TestModel.session { $0.maxTokens = 256; $0.format = .json }
            let reply = try await session.reply(to: "Give the name and the country of the capital of France as JSON.").collect()
            #expect(reply.summary?.stopReason == .endOfGeneration, "\(reply.text)")
            guard case .object(let object) = try JSONValue(parsing: reply.text) else {
                Issue.record("not an object: \(reply.text)")
                return
            }
            #expect(!object.members.isEmpty)
        }

        @Test func aGrammarDecidesTheShapeOfTheText() async throws {
            let format = try ReplyFormat.grammar("""
                # A yes or no, then one short sentence.
                root ::= ("Yes" | "No") ", " [a-z ]{1,40} "."
                """)
            let (session, _) = try TestModel.session { $0.format = format }
            let reply = try await session.reply(to: "Is the sea salty?").collect()
            #expect(reply.text.wholeMatch(of: /(Yes|No), [a-z ]{1,40}\./) != nil, "\(reply.text)")
            #expect(reply.summary?.stopReason == .endOfGeneration)
        }

        /// A reply cut short by max-tokens is reported incomplete, never valid.
        @Test func aReplyCutShortIsIncomplete() async throws {
            let format = try ReplyFormat.jsonSchema(#"{"type": "object", "properties": {"story": {"type": "string", "minLength": 200}}, "required": ["story"]}"#)
            let (session, _) = try TestModel.session { $0.maxTokens = 12; $0.format = format }
            let reply = try await session.reply(to: "Tell a long story.").collect()
            #expect(reply.summary?.stopReason == .maxTokens)
            #expect(reply.text.hasPrefix("{"))
            let problem = try #require(format.problem(with: reply.text, stopReason: .maxTokens))
            #expect(problem.contains("incomplete: the reply ended (max-tokens) before its JSON was complete"), "\(problem)")
        }

        /// An order whose strings have no length limit: raised by a hook, the letter "a" would fill
        /// the first string until `max-tokens`; budget steering closes it, gives the required members
        /// their shortest values, and ends the reply valid, with `eos`, within the budget — greedy
        /// and sampled, whatever words the model prefers.
        @Test func aReplyIsSteeredToFinishWithinItsBudget() async throws {
            let format = try ReplyFormat.jsonSchema("""
                {"type": "object", "properties": {"customer": {"type": "string"}, "items": {"type": "array", "minItems": 1,
                  "maxItems": 4, "items": {"type": "object", "properties": {"name": {"type": "string"}, "note": {"type": "string"},
                  "quantity": {"type": "integer", "minimum": 1}}, "required": ["name", "note", "quantity"], "additionalProperties": false}},
                  "address": {"type": "string"}}, "required": ["customer", "items", "address"], "additionalProperties": false}
                """)
            let schema = try JSONSchema(JSONValue(parsing: format.definition))
            for (temperature, seed) in [(0.0, nil), (0.8, 7 as UInt32?)] {
                let (session, _) = try TestModel.session {
                    $0.maxTokens = 48
                    $0.format = format
                    $0.temperature = temperature
                    $0.seed = seed
                }
                session.hooks = [LetterRaise(letter: "a", by: 40)]
                let reply = try await session.reply(to: "Write an order for a bakery as JSON.").collect()
                let statistics = try #require(reply.summary?.statistics)
                #expect(reply.summary?.stopReason == .endOfGeneration, "\(reply.text)")
                #expect(statistics.generatedTokens <= 48)
                #expect(reply.text.contains("aaaa"), "the hook had the model write its letter: \(reply.text)")
                let document = try JSONValue(parsing: reply.text)
                #expect(schema.violations(of: document).isEmpty, "\(reply.text)")
                let steering = try #require(statistics.steering, "\(reply.text)")
                #expect(steering.tokens > 0 && steering.from < statistics.generatedTokens)
            }
        }

        /// When even the shortest reply the format allows does not fit, steering stands aside.
        @Test func aBudgetTooSmallForAnyValidReplyIsNotSteered() async throws {
            let format = try ReplyFormat.jsonSchema(#"{"type": "object", "properties": {"a": {"type": "string", "minLength": 30}}, "required": ["a"]}"#)
            let (session, _) = try TestModel.session { $0.maxTokens = 6; $0.format = format }
            let reply = try await session.reply(to: "Write JSON.").collect()
            #expect(reply.summary?.stopReason == .maxTokens)
            #expect(reply.summary?.statistics.steering == nil)
        }

        /// Under a random draw the reply still follows the schema, and a seed still fixes it.
        @Test func sampledRepliesFollowTheSchemaAndTheSeed() async throws {
            let format = try ReplyFormat.jsonSchema("""
                {"type": "object", "properties": {"colour": {"enum": ["red", "green", "blue"]}, "count": {"type": "integer", "minimum": 1, "maximum": 9}},
                 "required": ["colour", "count"], "additionalProperties": false}
                """)
            let schema = try JSONSchema(JSONValue(parsing: format.definition))
            var texts: [String] = []
            for seed: UInt32 in [1, 2, 3, 1] {
                let (session, _) = try TestModel.session { $0.temperature = 1; $0.seed = seed; $0.maxTokens = 64; $0.format = format }
                let reply = try await session.reply(to: "Pick a colour and a number.").collect()
                #expect(schema.violations(of: try JSONValue(parsing: reply.text)).isEmpty, "\(reply.text)")
                texts.append(reply.text)
            }
            #expect(texts[0] == texts[3], "the same seed, the same reply")
        }
    }
}
