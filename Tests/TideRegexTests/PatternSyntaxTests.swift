import Testing
import TideRegex

/// Each construct of the syntax, matched: the text of the leftmost match and of each group.
@Suite struct PatternSyntaxTests {
    /// The matched text and each group's text ("-" for a group that took no part), or nil.
    static func match(_ pattern: String, in text: String) throws -> [String]? {
        guard let match = try Pattern(pattern).firstMatch(in: text) else { return nil }
        return [String(text[match.range])] + match.captures.map { $0.map { String(text[$0]) } ?? "-" }
    }

    @Test(arguments: [
        // Literals, dot, escapes.
        ("abc", "xxabcx", ["abc"]),
        ("a.c", "abc", ["abc"]),
        ("a.c", "a\nc", nil),
        ("(?s)a.c", "a\nc", ["a\nc"]),
        ("\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\\\\\^\\$\\/", "x.*+?()[]{}|\\^$/", [".*+?()[]{}|\\^$/"]),
        ("\\n\\t\\r\\f\\v\\0", "\n\t\r\u{0C}\u{0B}\0", ["\n\t\r\u{0C}\u{0B}\0"]),
        ("\\x41\\x{1F30A}\\u00E9\\u{E9}", "A🌊éé", ["A🌊éé"]),
        ("🌊+", "sea 🌊🌊!", ["🌊🌊"]),
        // Shorthand classes, by Unicode properties.
        ("\\d+", "ab ٣4 ", ["٣4"]),
        ("\\D+", "12ab3", ["ab"]),
        ("\\w+", "-- héllo_1 --", ["héllo_1"]),
        ("\\W+", "ab, cd", [", "]),
        ("\\s+", "a \t\u{A0}\nb", [" \t\u{A0}\n"]),
        ("\\S+", "  ab  ", ["ab"]),
        // Bracketed classes.
        ("[abc]+", "xxbcay", ["bca"]),
        ("[^abc]+", "abxyc", ["xy"]),
        ("[a-cx-z]+", "dcazq", ["caz"]),
        ("[-a]+", "b-a-", ["-a-"]),
        ("[a-]+", "b-a-", ["-a-"]),
        ("[]a]+", "b]a", ["]a"]),
        ("[\\d\\s]+", "ab1 2cd", ["1 2"]),
        ("[\\]\\\\\\-]+", "a]\\-b", ["]\\-"]),
        ("[^\\W_]+", "__ab1_", ["ab1"]),
        ("[\\x41-\\x43]+", "ABCD", ["ABC"]),
        // Anchors.
        ("^a", "ba", nil),
        ("^b", "ab", nil),
        ("a$", "a\n", nil),
        ("a\\Z", "a\n", ["a"]),
        ("a\\z", "a\n", nil),
        ("\\Aa", "ba", nil),
        ("(?m)^b$", "a\nb\nc", ["b"]),
        ("^b$", "a\nb\nc", nil),
        ("\\bcat\\b", "concat cat", ["cat"]),
        ("\\Bcat", "cat concat", ["cat"]),
        ("x\\b", "xy x", ["x"]),
        // Groups and alternation (leftmost-first).
        ("(a)(b)?", "ac", ["a", "a", "-"]),
        ("(?:ab)+", "ababa", ["abab"]),
        ("(?<word>\\w+) (?<number>\\d+)", "is 42", ["is 42", "is", "42"]),
        ("(?P<word>a)", "a", ["a", "a"]),
        ("a|ab", "ab", ["a"]),
        ("ab|a", "ab", ["ab"]),
        ("(a|ab)(c|bcd)(d*)", "abcd", ["abcd", "a", "bcd", ""]),
        ("x|", "y", [""]),
        ("(a)|b", "b", ["b", "-"]),
        ("(a|b)+", "abba", ["abba", "a"]),
        // Quantifiers, greedy and lazy.
        ("a*", "aaa", ["aaa"]),
        ("a*?", "aaa", [""]),
        ("a+", "baaa", ["aaa"]),
        ("a+?", "baaa", ["a"]),
        ("ba?", "ba", ["ba"]),
        ("ba??", "ba", ["b"]),
        ("a{2}", "aaa", ["aa"]),
        ("a{2,}", "aaaa", ["aaaa"]),
        ("a{2,}?", "aaaa", ["aa"]),
        ("a{1,3}", "aaaa", ["aaa"]),
        ("a{1,3}?", "aaaa", ["a"]),
        ("a{,2}", "aaa", ["aa"]),
        ("a{0}b", "ab", ["b"]),
        ("<.+>", "<a><b>", ["<a><b>"]),
        ("<.+?>", "<a><b>", ["<a>"]),
        ("a{x", "a{x", ["a{x"]),
        ("(a*)*b", "aab", ["aab", "aa"]),
        ("(a|b)*?c", "abc", ["abc", "b"]),
        // Flags.
        ("(?i)straße", "STRAßE", ["STRAßE"]),
        ("(?i)k", "\u{212A}", ["\u{212A}"]),
        ("(?i)[a-c]+", "xABCd", ["ABC"]),
        ("(?i)[^a]", "Ab", ["b"]),
        ("(?i)é", "É", ["É"]),
        ("a(?i)b", "aB", ["aB"]),
        ("a(?i)b", "AB", nil),
        ("(?i:a)b", "Ab", ["Ab"]),
        ("(?i:a)b", "AB", nil),
        ("(?i)a(?-i)b", "Ab", ["Ab"]),
        ("(?i)a(?-i)b", "AB", nil),
        ("((?i)a)b", "AB", nil),
        ("(?x) a b # a comment\n c", "abc", ["abc"]),
        ("(?x)[ ]", "a b", [" "]),
        ("a(?#comment)b", "ab", ["ab"]),
        ("", "abc", [""]),
    ] as [(String, String, [String]?)])
    func matches(pattern: String, text: String, expected: [String]?) throws {
        #expect(try Self.match(pattern, in: text) == expected)
    }

    @Test func namedGroupsAreFoundByName() throws {
        let text = "on 2024-05-01"
        let match = try #require(try Pattern("(?<year>\\d{4})-(?<month>\\d\\d)").firstMatch(in: text))
        #expect(match["year"].map { String(text[$0]) } == "2024")
        #expect(match["month"].map { String(text[$0]) } == "05")
        #expect(match["day"] == nil)
    }

    @Test func theTreeHoldsTheFlagsAndTheGroups() throws {
        let parsed = try RegexParser.parse("(?i)a(?<n>.)(?s:.)[^\\d]{2,3}?$")
        let expected = RegexNode.concatenation([
            .literal("a", ignoringCase: true),
            .group(.dot(matchesNewline: false), capture: Capture(index: 1, name: "n")),
            .group(.dot(matchesNewline: true), capture: nil),
            .repetition(Repetition(.characterClass(CharacterClass([.digit(negated: false)], negated: true, ignoringCase: true)),
                                   min: 2, max: 3, greedy: false)),
            .assertion(.endOfText),
        ])
        #expect(parsed.root == expected)
        #expect(parsed.captures == [Capture(index: 1, name: "n")])
    }

    @Test func matchesSaysWhetherThereIsAMatchAnywhere() throws {
        let pattern = try Pattern("b+c")
        #expect(try pattern.matches("aabbbc"))
        #expect(try !pattern.matches("aabbb"))
    }
}
