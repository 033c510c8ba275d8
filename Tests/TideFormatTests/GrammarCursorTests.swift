import Foundation
import Testing
@testable import TideFormat

@Suite("Grammar cursor")
struct GrammarCursorTests {
    private func cursor(_ gbnf: String) throws -> GrammarCursor {
        GrammarCursor(try CompiledGrammar(gbnf: gbnf))
    }

    private func text(_ bytes: [UInt8]?) -> String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("the shortest completion takes the shortest alternative, repetitions at their least")
    func shortest() throws {
        var choice = try cursor(#"root ::= "abc" | "de" | "f" [0-9]{3} "x""#)
        #expect(text(choice.shortestCompletion) == "de")
        #expect(choice.shortestCompletionLength == 2)
        choice.advance(Array("f1".utf8))
        #expect(text(choice.shortestCompletion) == "00x")
        #expect(!choice.isComplete)
        choice.advance(Array("23x".utf8))
        #expect(choice.isComplete && choice.shortestCompletion == [])

        let nested = try cursor("root ::= \"[\" item (\",\" item)* \"]\"\nitem ::= [a-z]+ | \"(\" item \")\"")
        #expect(text(nested.shortestCompletion) == "[a]")
        var inside = nested
        inside.advance(Array("[((b".utf8))
        #expect(text(inside.shortestCompletion) == "))]")
    }

    @Test("text the grammar refuses leaves the cursor dead, and a token reference completes nothing")
    func refusals() throws {
        var digits = try cursor("root ::= [0-9]+")
        let advanced = digits.advance(Array("1a".utf8))
        #expect(!advanced)
        #expect(digits.isDead && digits.shortestCompletion == nil && digits.shortestCompletionLength == nil)
        let token = try cursor("root ::= \"a\" <[5]> | \"bb\"")
        #expect(text(token.shortestCompletion) == "bb")
        var negated = try cursor(#"root ::= "\"" [^"\\]{2} "\"""#)
        negated.advance([UInt8(ascii: "\"")])
        #expect(text(negated.shortestCompletion) == "aa\"")
    }

    @Test("a character begun in UTF-8 is finished first")
    func partialCharacter() throws {
        var accented = try cursor(#"root ::= [é-ê] "x""#)
        accented.advance([0xC3])
        #expect(!accented.isComplete && accented.shortestCompletion == [0xA9, UInt8(ascii: "x")])
        let wrong = accented.advance([0x41])
        #expect(!wrong)
    }

    @Test("every prefix of each fixture's valid example is completed into JSON the schema accepts",
          arguments: FixtureSchemas.names)
    func fixtures(name: String) throws {
        let schema = try JSONSchema(FixtureSchemas.load(name))
        let valid = Array(try FixtureSchemas.load(name, ".valid.json").text.utf8)
        let compiled = try CompiledGrammar(gbnf: schema.grammar.text)
        var cursor = GrammarCursor(compiled)
        for index in 0...valid.count {
            if index > 0 {
                let taken = cursor.advance([valid[index - 1]])
                #expect(taken, "\(name) refused at byte \(index)")
            }
            let completion = try #require(cursor.shortestCompletion, "\(name) at byte \(index)")
            #expect(completion.count == cursor.shortestCompletionLength)
            #expect(completion.count <= valid.count - index, "\(name) at byte \(index): longer than the example's rest")
            // Completions are checked where a character ends (the recognizer reads characters).
            guard index == valid.count || (valid[index] & 0xC0) != 0x80 else { continue }
            let whole = String(decoding: valid[..<index] + completion, as: UTF8.self)
            #expect(try GrammarRecognizer.accepts(schema.grammar, whole), "\(name): \(whole)")
            #expect(schema.violations(of: try JSONValue(parsing: whole)) == [], "\(name): \(whole)")
            var check = GrammarCursor(compiled)
            check.advance(Array(whole.utf8))
            #expect(check.isComplete, "\(name): \(whole)")
        }
    }
}
