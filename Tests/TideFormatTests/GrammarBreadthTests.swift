import Testing
@testable import TideFormat

/// Grammars and schemas found by fuzzing to take seconds or minutes: a rule of 100,000
/// alternatives (llama.cpp checks every sampled token against each), and a tool schema of
/// 100,000 properties (its grammar's size was worked out in full, more slowly than linearly,
/// before the limit refused it). Each is refused early, and what is near the limits is read in
/// linear time. The time limits are hang guards, a hundred times what the work takes.
@Suite(.timeLimit(.minutes(1)))
struct GrammarBreadthTests {
    static func alternatives(_ count: Int) -> String {
        "root ::= " + Array(repeating: "\"a\"", count: count).joined(separator: " | ") + " | \"b\""
    }

    @Test func aRuleOfAHundredThousandAlternativesIsRefusedAsItIsChecked() {
        let error = #expect(throws: SyntaxError.self) { try Grammar(gbnf: Self.alternatives(100_000)) }
        #expect(error?.description.contains("would make llama.cpp follow more than 4096 alternatives at once") == true)
    }

    @Test func theWidthCountsEveryWayToTheFirstCharacter() throws {
        // 4095 + "b": exactly the limit.
        _ = try Grammar(gbnf: Self.alternatives(4095))
        // Rules of 32 reached through an optional one (it may read nothing) and a group: 33 (the
        // optional one counts its empty way) + 4 × 32 × 32 = 4129 ways, though no rule lists more
        // than 32; with three in the group, 3105.
        let thirtyTwo = (1...32).map { "\"\($0)\"" }.joined(separator: " | ")
        let wide = """
            root ::= opt? (b | b | b | b)
            opt ::= \(thirtyTwo)
            b ::= c
            c ::= \(Array(repeating: "d", count: 32).joined(separator: " | "))
            d ::= \(thirtyTwo)
            """
        let error = #expect(throws: SyntaxError.self) { try Grammar(gbnf: wide) }
        #expect(error?.description.contains("entering 'root'") == true, "\(String(describing: error))")
        _ = try Grammar(gbnf: wide.replacingOccurrences(of: "(b | b | b | b)", with: "(b | b | b)"))
    }

    @Test func aChainOfRulesNestingPastTheLimitIsRefused() {
        // Each rule is entered before its "x": llama.cpp would stack 20,000 positions.
        let count = 20_000
        let chain = (0..<count).map { "r\($0) ::= r\($0 + 1) \"x\"" }.joined(separator: "\n")
        let error = #expect(throws: SyntaxError.self) { try Grammar(gbnf: "root ::= r0\n" + chain + "\nr\(count) ::= \"y\"\n") }
        #expect(error?.description.contains("rules deep before the first character, over the limit of 1024") == true,
                "\(String(describing: error))")
    }

    @Test func aLongChainOfTailReferencesIsCheckedAndCompiledInLinearTime() throws {
        // Entered last in its alternative, each rule stacks nothing; the shortest text is found in
        // one pass (relaxing took a pass per rule of the chain, and gave up after 10,000).
        let count = 50_000
        let chain = (0..<count).map { "r\($0) ::= r\($0 + 1)" }.joined(separator: "\n")
        let text = "root ::= r0\n" + chain + "\nr\(count) ::= \"y\"\n"
        _ = try Grammar(gbnf: text)
        let compiled = try CompiledGrammar(gbnf: text)
        let root = [Int32(compiled.alternatives[0][0])]
        #expect(compiled.shortestLength(of: root) == 1)
        #expect(compiled.shortestText(of: root) == Array("y".utf8))
    }

    @Test func aGrammarWhoseShortestTextIsExponentialIsNotWrittenOut() throws {
        // Forty rules, each twice the next: the shortest text is 2⁴⁰ bytes (it was written out,
        // and `tide generate` hung).
        let doubling = (0..<40).map { "r\($0) ::= r\($0 + 1) r\($0 + 1)" }.joined(separator: "\n")
        var cursor = GrammarCursor(try CompiledGrammar(gbnf: "root ::= r0\n" + doubling + "\nr40 ::= \"y\"\n"))
        #expect(cursor.shortestCompletionLength == 1 << 40)
        #expect(cursor.shortestCompletion == nil)
        let advanced = cursor.advance(Array("yyy".utf8))
        #expect(advanced)
        #expect(cursor.shortestCompletionLength == (1 << 40) - 3)
        // With the last rule empty, entering r0 would make 2⁴⁰ stacks: refused.
        let error = #expect(throws: SyntaxError.self) { try Grammar(gbnf: "root ::= r0 \"z\"\n" + doubling + "\nr40 ::= \"\"\n") }
        #expect(error?.description.contains("alternatives at once") == true)
    }

    @Test func aLongRunOfOptionalCharactersCostsBoundedWorkPerCharacter() throws {
        // Found by fuzzing: after each character the cursor expanded every way through 1,500
        // optional copies, thousands of stacks each up to a thousand deep (seconds per
        // character); now a step gives up, the cursor lost, past GrammarCursor.maximumWork.
        var cursor = GrammarCursor(try CompiledGrammar(gbnf: "root ::= [a]* [ab]?{1500}\n"))
        for _ in 0..<256 { _ = cursor.advance(Array("a".utf8)) }
        #expect(cursor.isLost || !cursor.isDead)
        // A grammar without such runs is followed to its end.
        var plain = GrammarCursor(try CompiledGrammar(gbnf: "root ::= [a]* \"b\"\n"))
        let advanced = plain.advance(Array((String(repeating: "a", count: 256) + "b").utf8))
        #expect(advanced && plain.isComplete && !plain.isLost)
    }

    @Test func aNegatedClassOfManyRangesFindsItsCheapestCharacterInOneSweep() throws {
        // Each code point from U+0020 was tried against every range: 10¹² comparisons here.
        let listed = String(repeating: "a", count: 900_000)
        let nothing = GrammarCursor(try CompiledGrammar(gbnf: "root ::= [^\(listed)\\x20-\\U0010FFFF]\n"))
        #expect(nothing.shortestCompletion == nil)
        let b = GrammarCursor(try CompiledGrammar(gbnf: "root ::= [^\(listed)\\x20-\\x60]\n"))
        #expect(b.shortestCompletion == Array("b".utf8))
    }

    /// `$defs` t0…t40, each `anyOf` twice the next: 2⁴⁰ ways to the last.
    static let doublingDefinitions: JSONValue = .object(JSONObject((0...40).map { index in
        .init(key: "t\(index)", value: index == 40 ? .object(JSONObject([.init(key: "type", value: .string("string"))]))
              : .object(JSONObject([.init(key: "anyOf", value: .array(Array(repeating: .object(JSONObject([
                  .init(key: "$ref", value: .string("#/$defs/t\(index + 1)")),
              ])), count: 2)))])))
    }))

    @Test func aDoublingChainOfAnyOfIsValidatedOncePerPlaceAndSchema() throws {
        // Found by the audit after fuzzing: a value failing every branch was checked 2⁴⁰ times.
        let schema = JSONValue.object(JSONObject([
            .init(key: "$defs", value: Self.doublingDefinitions), .init(key: "$ref", value: .string("#/$defs/t0")),
        ]))
        let validator = SchemaValidator(nodes: try SchemaReader.read(schema))
        #expect(validator.violations(of: .number(5), against: 0).count == 1)
        #expect(validator.violations(of: .string("x"), against: 0).isEmpty)
    }

    @Test func aDoublingChainUnderOneOfIsProvedDisjointInLinearTime() {
        // The types of each branch were worked out again at every level (2⁴⁰ calls); the grammar
        // then refuses the schema for its width, which the proof no longer hides.
        let schema = JSONValue.object(JSONObject([
            .init(key: "$defs", value: Self.doublingDefinitions),
            .init(key: "oneOf", value: .array([
                .object(JSONObject([.init(key: "$ref", value: .string("#/$defs/t0"))])),
                .object(JSONObject([.init(key: "type", value: .string("null"))])),
            ])),
        ]))
        let error = #expect(throws: SchemaError.self) { try JSONSchema(schema) }
        #expect(error?.description.contains("alternatives at once") == true, "\(String(describing: error))")
    }

    @Test func keysOfAnyLengthAreExcludedByATrieOfRules() throws {
        // The trie nested a group per character: a key of 300 characters made a grammar the
        // checker refused ("a bug in TideFormat"), one of 200,000 overflowed the stack.
        func schema(_ key: String) -> JSONValue {
            .object(JSONObject([
                .init(key: "type", value: .string("object")),
                .init(key: "properties", value: .object(JSONObject([.init(key: key, value: .object(JSONObject([
                    .init(key: "type", value: .string("integer")),
                ])))]))),
                .init(key: "additionalProperties", value: .bool(true)),
            ]))
        }
        let long = String(repeating: "k", count: 300)
        let grammar = try JSONSchema(schema(long)).grammar
        #expect(try GrammarRecognizer.accepts(grammar, #"{"\#(long)":1,"other":[true]}"#))
        #expect(try !GrammarRecognizer.accepts(grammar, #"{"\#(long)":1,"\#(long)":2}"#))
        let error = #expect(throws: SchemaError.self) { try JSONSchema(schema(String(repeating: "k", count: 200_000))) }
        #expect(error?.description.contains("over the limit of 262144") == true, "\(String(describing: error))")
    }

    @Test func aSchemaOfAHundredThousandPropertiesIsRefusedBeforeItsGrammarIsWritten() {
        let properties = JSONObject((0..<100_000).map { JSONObject.Member(key: "p\($0)", value: .object(JSONObject([]))) })
        let schema = JSONValue.object(JSONObject([
            .init(key: "type", value: .string("object")),
            .init(key: "properties", value: .object(properties)),
            .init(key: "required", value: .array((0..<50_000).map { .string("p\($0 * 2)") })),
        ]))
        let error = #expect(throws: SchemaError.self) { try JSONSchema(schema) }
        #expect(error?.description.contains("over the limit of 262144") == true, "\(String(describing: error))")
    }

    @Test func propertiesNamedAllInSymbolsGetRuleNamesWithoutRescans() throws {
        // Every name sanitizes to the same rule name, "--", numbered on from the last one given.
        let symbols = Array("!#$%&'()*+,./:;<=>?@")
        let names = symbols.flatMap { first in symbols.map { String([first, $0]) } }
        let schema = JSONValue.object(JSONObject([
            .init(key: "type", value: .string("object")),
            .init(key: "properties", value: .object(JSONObject(names.map { .init(key: $0, value: .object(JSONObject([
                .init(key: "type", value: .string("integer")),
            ]))) }))),
            .init(key: "required", value: .array(names.map { .string($0) })),
        ]))
        let compiled = try JSONSchema(schema)
        #expect(compiled.grammar.text.contains("---400 ::= "))
        #expect(compiled.violations(of: .object(JSONObject(names.map { .init(key: $0, value: .number(1)) }))).isEmpty)
    }

    @Test func anEnumWiderThanAGrammarCanFollowIsASchemaError() {
        let schema = JSONValue.object(JSONObject([.init(key: "enum", value: .array((0..<5000).map { .number(Double($0)) }))]))
        let error = #expect(throws: SchemaError.self) { try JSONSchema(schema) }
        #expect(error?.description.contains("would make llama.cpp follow more than 4096 alternatives at once") == true,
                "\(String(describing: error))")
    }

    @Test func validatingALargeObjectAgainstALargeSchemaIsLinear() throws {
        let count = 20_000
        let schema = JSONValue.object(JSONObject([
            .init(key: "type", value: .string("object")),
            .init(key: "properties", value: .object(JSONObject((0..<count).map { .init(key: "p\($0)", value: .object(JSONObject([
                .init(key: "type", value: .string("integer")),
            ]))) }))),
        ]))
        // The validator alone: the grammar is over its limit, so read the nodes directly.
        let nodes = try SchemaReader.read(schema)
        let value = JSONValue.object(JSONObject((0..<count).map { .init(key: "p\($0)", value: .string("x")) }))
        #expect(SchemaValidator(nodes: nodes).violations(of: value, against: 0).count == count)
        #expect(SchemaValidator.equal(value, value))
    }
}
