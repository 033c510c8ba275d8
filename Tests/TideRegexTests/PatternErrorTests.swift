import Testing
import TideRegex

/// Refused patterns: each names the construct and where it is (in Unicode scalars from 0).
@Suite struct PatternErrorTests {
    static func error(_ pattern: String) -> PatternError? {
        do {
            _ = try Pattern(pattern)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("abc\\1", 3, "backreferences (\\1) are not supported: the pattern must match in linear time (at offset 3)"),
        ("(a)\\k<x>", 3, "backreferences (\\k) are not supported: the pattern must match in linear time (at offset 3)"),
        ("(?P=x)", 0, "backreferences ((?P=) are not supported: the pattern must match in linear time (at offset 0)"),
        ("a(?=b)", 1, "lookaheads ((?=) are not supported: the pattern must match in linear time (at offset 1)"),
        ("a(?!b)", 1, "negative lookaheads ((?!) are not supported: the pattern must match in linear time (at offset 1)"),
        ("(?<=a)b", 0, "lookbehinds ((?<=) are not supported: the pattern must match in linear time (at offset 0)"),
        ("(?<!a)b", 0, "lookbehinds ((?<!) are not supported: the pattern must match in linear time (at offset 0)"),
        ("x(?>a+)", 1, "atomic groups ((?>) are not supported: the pattern must match in linear time (at offset 1)"),
        ("a++", 1, "possessive quantifiers (++) are not supported: the pattern must match in linear time (at offset 1)"),
        ("a{2,}+", 1, "possessive quantifiers ({2,}+) are not supported: the pattern must match in linear time (at offset 1)"),
        ("(?(1)a|b)", 0, "conditionals ((?() are not supported: the pattern must match in linear time (at offset 0)"),
        ("a(?R)", 1, "recursive patterns ((?R) are not supported: the pattern must match in linear time (at offset 1)"),
        ("(a)(?1)", 3, "recursive patterns ((?1) are not supported: the pattern must match in linear time (at offset 3)"),
        ("(*FAIL)", 0, "backtracking control verbs ((*) are not supported: the pattern must match in linear time (at offset 0)"),
        ("\\p{L}", 0, "Unicode property classes (\\p{…}) are not supported; list the characters in brackets (at offset 0)"),
        ("[[:alpha:]]", 1, "POSIX classes ([:name:]) are not supported; write \\[ for the character (at offset 1)"),
        ("a\\K", 1, "\\K is not supported (at offset 1)"),
    ])
    func unsupportedConstructsAreNamed(pattern: String, offset: Int, message: String) {
        let error = Self.error(pattern)
        #expect(error?.kind == .unsupported)
        #expect(error?.offset == offset)
        #expect(error?.description == message)
    }

    @Test(arguments: [
        ("ab(c", 2, "this group is never closed: add ) (at offset 2)"),
        ("ab)c", 2, "unmatched closing parenthesis (at offset 2)"),
        ("a[bc", 1, "this class is never closed: add ] (at offset 1)"),
        ("*a", 0, "the quantifier * has nothing to repeat; write \\* for the character (at offset 0)"),
        ("a|{2}", 2, "the quantifier { has nothing to repeat; write \\{ for the character (at offset 2)"),
        ("a**", 2, "a quantifier cannot follow another quantifier; put the first in a group (?: … ) (at offset 2)"),
        ("a{3,2}", 1, "the quantifier {3,2} has its maximum below its minimum (at offset 1)"),
        ("[z-a]", 1, "the range z-a is out of order (at offset 1)"),
        ("[a-\\d]", 3, "a range cannot end with a class such as \\d; write \\- for a hyphen (at offset 3)"),
        ("ab\\", 2, "the pattern ends with a lone backslash (at offset 2)"),
        ("\\q", 0, "unknown escape \\q; write \\\\ for a backslash (at offset 0)"),
        ("\\x4", 0, "\\x needs 2 hexadecimal digits or a code in braces, like \\u{1F30A}, naming a Unicode scalar (at offset 0)"),
        ("\\u{110000}", 0, "\\u needs 4 hexadecimal digits or a code in braces, like \\u{1F30A}, naming a Unicode scalar (at offset 0)"),
        ("\\01", 0, "octal escapes (\\01) are not supported; write \\x{…} (at offset 0)"),
        ("(?<1a>x)", 0, "a group name is letters, digits and _, not starting with a digit, closed by > (at offset 0)"),
        ("(?<a>x)(?<a>y)", 7, "two groups are named 'a' (at offset 7)"),
        ("(?q)", 2, "unknown group or flag (?q; flags are i, s, m and x, as in (?i) or (?i: … ) (at offset 2)"),
        ("a(?#b", 1, "this comment (?# is never closed (at offset 1)"),
    ])
    func syntaxErrorsSayWhere(pattern: String, offset: Int, message: String) {
        let error = Self.error(pattern)
        #expect(error?.kind == .syntax)
        #expect(error?.offset == offset)
        #expect(error?.description == message)
    }

    @Test func countedRepetitionIsCapped() throws {
        _ = try Pattern("x{\(RegexCompiler.maximumInstructions - 3)}")
        let error = Self.error("a(bcdef){1000}")
        #expect(error?.kind == .tooLarge)
        #expect(error?.description == "{1000} repeats of (bcdef) make the pattern too large: 7000 instructions, more than "
                + "the limit of 5000 (at offset 8)")
        // Each repetition fits, the whole does not: the largest is named.
        let total = Self.error("a{2000}b{2500}c{1000}")
        #expect(total?.kind == .tooLarge)
        #expect(total?.description == "the pattern is too large: it needs 5500 instructions, more than the limit of 5000 "
                + "(at offset 8)")
        #expect(Self.error("a{1000000000000}")?.kind == .tooLarge)
    }

    /// Found by the audit after fuzzing: each named group was compared with every earlier one.
    @Test(.timeLimit(.minutes(1))) func manyNamedGroupsAreReadInLinearTime() {
        let pattern = (0..<100_000).map { "(?<g\($0)>x)" }.joined()
        #expect(Self.error(pattern)?.kind == .tooLarge)
        #expect(Self.error("(?<a>x)(?<b>y)(?<a>z)")?.description == "two groups are named 'a' (at offset 14)")
    }

    /// Found by fuzzing: 20,000 nested groups overflowed the stack (SIGSEGV) in the parser,
    /// which recurses once per group.
    @Test func groupsNestAtMostTwoHundredFiftyDeep() throws {
        let deepest = RegexParser.maximumNesting
        #expect(try Pattern(String(repeating: "(", count: deepest) + "a" + String(repeating: ")", count: deepest)).firstMatch(in: "xa") != nil)
        for depth in [deepest + 1, 20_000] {
            let error = Self.error(String(repeating: "(?:", count: depth) + "a" + String(repeating: ")", count: depth))
            #expect(error?.kind == .tooLarge)
            #expect(error?.description == "groups nest deeper than the limit of 250 (at offset \(3 * deepest))")
        }
    }
}
