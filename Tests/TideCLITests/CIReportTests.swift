import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide run --tap` and `--junit FILE`, read back by a TAP parser of our own and checked
    /// against the structure of the JUnit schema, and `--repeat` with its pass rates.
    @Suite struct CIReportTests {
        /// A script with checks that hold, fail, fail within the rate they need, and a hostile reply
        /// check; the capitals plugin makes its replies' words certain.
        static let script = """
            @temperature 0
            @plugin \(ScratchPlugins.capitalsFile)
            @max-tokens 16
            user: What is the capital of France?
            expect: contains "Paris"
            expect: contains "Berlin <&> \\"#\\""
            @min-pass 0
            user: And of Italy?
            expect: contains "Oslo"

            """

        func scriptFile() throws -> URL {
            let file = try CommandLineTests.scratchFolder("ci").appendingPathComponent("capitals.tide")
            try Self.script.write(to: file, atomically: true, encoding: .utf8)
            return file
        }

        @Test func tapIsValidAndCountsEveryCheck() throws {
            let file = try scriptFile()
            let result = try TideProcess.run(["run", "--tap", "--repeat", "2", file.path])
            #expect(result.status == 1)
            let tap = try TAPDocument(parsing: result.stdout)
            #expect(tap.points.map(\.ok) == [true, false, true])
            #expect(tap.points[0].description == "\(file.path):5 expect: contains \"Paris\" (2/2 runs)")
            // A `#` in a description is escaped, so that it does not read as a directive.
            #expect(tap.points[1].description.contains("Berlin <&> ") && tap.points[1].description.contains("\\#"))
            #expect(tap.points.allSatisfy { !$0.description.replacingOccurrences(of: "\\#", with: "").contains("#") })
            #expect(tap.points[1].diagnostics["message"] == "it does not")
            #expect(tap.points[1].diagnostics["reply"] == "The capital of France is Paris.")
            #expect(tap.points[1].diagnostics["runs"] == "0 of 2, needs 1")
            #expect(result.stderr.contains("2 passed, 1 failed"))
        }

        @Test func junitFollowsTheSchemasStructure() throws {
            let file = try scriptFile()
            let report = file.deletingLastPathComponent().appendingPathComponent("reports/junit.xml")
            let broken = file.deletingLastPathComponent().appendingPathComponent("broken.tide")
            try "user: Hi\nexpect: nonsense\n".write(to: broken, atomically: true, encoding: .utf8)
            let result = try TideProcess.run(["run", "-q", "--junit", report.path, broken.path, file.path])
            #expect(result.status == 2)
            let suites = try JUnitDocument(contentsOf: report)
            #expect(suites.attributes["name"] == "tide run")
            #expect(suites.attributes["tests"] == "4" && suites.attributes["failures"] == "2" && suites.attributes["errors"] == "1")
            #expect(suites.suites.map { $0.attributes["name"] } == ["broken", "capitals"])
            let capitals = suites.suites[1]
            #expect(capitals.cases.map { $0.attributes["name"] } == [
                "line 5: expect: contains \"Paris\"", "line 6: expect: contains \"Berlin <&> \\\"#\\\"\"",
                "line 9: expect: contains \"Oslo\""])
            #expect(capitals.cases.map { $0.failure?["message"] } == [nil, "it does not", "it does not"])
            #expect(capitals.cases[1].failureText == "reply: \"The capital of France is Paris.\"")
            #expect(capitals.cases.allSatisfy { $0.attributes["classname"] == "capitals" && $0.attributes["line"] != nil })
            #expect(suites.suites[0].cases.first?.error?["message"]?.contains("broken.tide:2") == true)
            // Counts agree with the cases.
            for suite in suites.suites {
                #expect(suite.attributes["tests"] == "\(suite.cases.count)")
                #expect(suite.attributes["failures"] == "\(suite.cases.count { $0.failure != nil })")
                #expect(suite.attributes["errors"] == "\(suite.cases.count { $0.error != nil })")
            }
        }

        /// Runs of a sampled script differ (run r adds r-1 to the seeds); a rate lets a check pass
        /// in some of them.
        @Test func repeatedRunsSampleDifferentlyAndRatesDecide() throws {
            let file = try CommandLineTests.scratchFolder("ci").appendingPathComponent("sampled.tide")
            try ("@temperature 1.2\n@max-tokens 12\nuser: Tell me a word.\nexpect: tokens >= 1\n@min-pass 0\nuser: Again.\nexpect: contains \"zzzz\"\n"
                 + "expect: perplexity < 1e9\n").write(to: file, atomically: true, encoding: .utf8)
            let result = try TideProcess.run(["run", "--json", "--repeat", "3", file.path])
            #expect(result.status == 0)
            let object = result.jsonCases.first
            let checks = object?["checks"] as? [[String: Any]] ?? []
            #expect(object?["runs"] as? Int == 3)
            #expect(checks.prefix(2).map { $0["passes"] as? Int } == [3, 0])
            #expect(checks.map { $0["passed"] as? Bool } == [true, true, true])
            #expect(checks.map { $0["min_pass"] as? Double } == [1, 0, 0])
            // Every run or none: pass@k is 1 or 0 for every k, and the interval reaches 100% or 0%.
            #expect(checks.prefix(2).map { $0["pass_at_k"] as? [Double] } == [[1, 1, 1], [0, 0, 0]])
            #expect(checks.map { ($0["interval"] as? [Double])?.count } == [2, 2, 2])
            // A measuring check gives each run's measure, their mean and its standard error; others none.
            let measures = try #require(checks[2]["measures"] as? [Double], "\(checks[2])")
            #expect(measures.count == 3 && measures.allSatisfy { $0 >= 1 })
            #expect(abs((checks[2]["measure_mean"] as? Double ?? 0) - measures.reduce(0, +) / 3) < 1e-9)
            #expect(checks[2]["measure_standard_error"] is Double && checks[0]["measures"] == nil)
            #expect((checks[0]["interval"] as? [Double])?.last == 1 && (checks[1]["interval"] as? [Double])?.first == 0)
            let text = try TideProcess.run(["run", "--repeat", "3", file.path])
            #expect(text.stdout.contains("expect: tokens >= 1 (3/3 runs, 100% [44–100%], pass@3 1.00)"), "\(text.stdout)")
            #expect(text.stdout.contains("expect: contains \"zzzz\" (0/3 runs, 0% [0–56%], pass@3 0.00, needs 0)"), "\(text.stdout)")
            // Its passes are the model's to decide (it needs none); its mean is shown either way.
            #expect(text.stdout.contains("expect: perplexity < 1000000000 (") && text.stdout.contains(", mean ")
                    && text.stdout.contains(", needs 0)"), "\(text.stdout)")
            let usage = try TideProcess.run(["run", "--min-pass", "0.8", file.path])
            #expect(usage.status != 0 && usage.stderr.contains("--min-pass only makes sense with --repeat N"))
            let clash = try TideProcess.run(["run", "--repeat", "2", "--out", "/tmp", file.path])
            #expect(clash.status != 0 && clash.stderr.contains("choose one"))
            let tolerance = try TideProcess.run(["run", "--tolerance", "11", file.path])
            #expect(tolerance.status == 2 && tolerance.stderr.contains("--tolerance must be a number of logits from 0 (exact) to 10, not 11.0"),
                    "\(tolerance.stderr)")
            let regenerating = try TideProcess.run(["run", "--tolerance", "0", "--regenerate", file.path])
            #expect(regenerating.status == 2 && regenerating.stderr.contains("--regenerate turns off"), "\(regenerating.stderr)")
        }
    }
}

/// A TAP (version 14) document read strictly: the version line, test points numbered from 1 in
/// order, YAML blocks of `key: "string"` lines after a point, and a plan that matches the count.
struct TAPDocument {
    struct Point {
        var ok: Bool
        var description: String
        var diagnostics: [String: String] = [:]
    }
    var points: [Point] = []

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    init(parsing text: String) throws {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.first == "TAP version 14" else { throw Invalid(description: "no version line: \(lines.first ?? "")") }
        var plan: Int?
        var index = 1
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.hasPrefix("1..") {
                guard plan == nil, let count = Int(line.dropFirst(3)) else { throw Invalid(description: "bad plan \(line)") }
                plan = count
                continue
            }
            guard plan == nil else { throw Invalid(description: "a line after the plan: \(line)") }
            let ok = line.hasPrefix("ok ")
            guard ok || line.hasPrefix("not ok ") else { throw Invalid(description: "not a test point: \(line)") }
            let rest = line.dropFirst(ok ? 3 : 7)
            guard let space = rest.firstIndex(of: " "), Int(rest[..<space]) == points.count + 1,
                  rest[space...].hasPrefix(" - ") else { throw Invalid(description: "bad numbering: \(line)") }
            var point = Point(ok: ok, description: String(rest[space...].dropFirst(3)))
            if index < lines.count, lines[index] == "  ---" {
                index += 1
                while index < lines.count, lines[index] != "  ..." {
                    let field = lines[index]
                    guard field.hasPrefix("  "), let colon = field.firstIndex(of: ":") else { throw Invalid(description: "bad YAML \(field)") }
                    let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    point.diagnostics[String(field.dropFirst(2)[..<colon])] = try JSONDecoder().decode(String.self, from: Data(value.utf8))
                    index += 1
                }
                guard index < lines.count else { throw Invalid(description: "a YAML block without its end") }
                index += 1
            }
            points.append(point)
        }
        guard plan == points.count else { throw Invalid(description: "plan \(plan.map(String.init) ?? "missing") for \(points.count) points") }
    }
}

/// A JUnit report read with Foundation's XML parser, keeping the elements the JUnit schema
/// defines: `testsuites` › `testsuite` › `testcase` › `failure` | `error`. Any other element
/// is an error.
final class JUnitDocument: NSObject, XMLParserDelegate {
    struct Case {
        var attributes: [String: String]
        var failure: [String: String]?
        var failureText = ""
        var error: [String: String]?
    }
    struct Suite {
        var attributes: [String: String]
        var cases: [Case] = []
    }
    var attributes: [String: String] = [:]
    var suites: [Suite] = []
    private var path: [String] = []
    private var problem: String?

    init(contentsOf url: URL) throws {
        super.init()
        let parser = XMLParser(data: try Data(contentsOf: url))
        parser.delegate = self
        guard parser.parse(), problem == nil else {
            throw TAPDocument.Invalid(description: problem ?? "\(parser.parserError.map { "\($0)" } ?? "invalid XML")")
        }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        let allowed = ["": "testsuites", "testsuites": "testsuite", "testsuite": "testcase"][path.last ?? ""]
        switch (path.last, name) {
        case (nil, "testsuites"): self.attributes = attributes
        case ("testsuites", "testsuite"): suites.append(Suite(attributes: attributes))
        case ("testsuite", "testcase"): suites[suites.count - 1].cases.append(Case(attributes: attributes))
        case ("testcase", "failure"): suites[suites.count - 1].cases[suites[suites.count - 1].cases.count - 1].failure = attributes
        case ("testcase", "error"): suites[suites.count - 1].cases[suites[suites.count - 1].cases.count - 1].error = attributes
        default: problem = "<\(name)> inside <\(path.last ?? "")>, where the schema allows \(allowed ?? "failure or error")"
        }
        path.append(name)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard path.last == "failure" else { return }
        suites[suites.count - 1].cases[suites[suites.count - 1].cases.count - 1].failureText += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        path.removeLast()
    }
}
