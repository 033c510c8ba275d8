/// A GBNF grammar checked by ``GrammarParser``: its rules by symbol number.
struct ParsedGrammar: Sendable, Hashable {
    /// The rule names by symbol number.
    var names: [String]
    /// The alternatives of each rule by symbol number; every referenced rule is defined.
    var rules: [[[GrammarTerm]]]
    /// Where each rule's (last) definition starts, in Unicode scalars from the start of the text.
    var definitionOffsets: [Int]

    /// The symbol number of `name`, if the grammar defines it.
    func symbol(named name: String) -> Int? {
        names.firstIndex(of: name)
    }
}
