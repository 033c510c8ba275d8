import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide run` at the scale of an evaluation: a script fed by a data file, replayed on several
    /// targets, with its transcripts, goldens and reports kept per target. The capitals plugin
    /// makes every reply's words certain; the second target cuts replies at three tokens, so its
    /// checks fail on any machine (the script leaves `@max-tokens` out, so a target's option holds).
    @Suite struct RunMatrixTests {
        static let script = """
            # capitals by data: one run per row.
            @data rows.csv
            @temperature 0
            @plugin \(ScratchPlugins.capitalsFile)
            user: What is the capital of {{country}}?
            expect: contains "{{capital}}"

            """
        static let rows = "id,country,capital\nfr,France,Paris\nit,Italy,Rome\nde,Germany,\"Bonn, \"\"not\"\" Berlin\"\n"
        static let targets = ["--target", "plain:", "--target", "short: --max-tokens 3"]

        func scriptFile() throws -> URL {
            let folder = try CommandLineTests.scratchFolder("matrix")
            try Self.rows.write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
            let file = folder.appendingPathComponent("capitals.tide")
            try Self.script.write(to: file, atomically: true, encoding: .utf8)
            return file
        }

        @Test func everyRowRunsOnEveryTarget() throws {
            let file = try scriptFile()
            let out = file.deletingLastPathComponent().appendingPathComponent("out")
            let result = try TideProcess.run(["run", "--out", out.path] + Self.targets + [file.path])
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("plain: \(file.path)[fr]:6: PASS expect: contains \"Paris\""))
            #expect(result.stdout.contains("short: \(file.path)[fr]:6: FAIL expect: contains \"Paris\""))
            // A value's quotes and commas are text, in a check as in a turn.
            #expect(result.stdout.contains("plain: \(file.path)[de]:6: FAIL expect: contains \"Bonn, \\\"not\\\" Berlin\""))
            // The matrix: a row per case, a column per target, then each target's totals.
            let matrix = result.stdout.components(separatedBy: "matrix (checks held per target):\n").last ?? ""
            let lines = matrix.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            #expect(lines.first == ["case", "plain", "short"])
            #expect(lines.contains(["\(file.path)[fr]", "1/1", "0/1"]))
            #expect(lines.contains(["\(file.path)[de]", "0/1", "0/1"]))
            #expect(lines.contains(["checks", "held", "2/3", "0/3"]))
            #expect(lines.contains(["cases", "passed", "2/3", "0/3"]))
            // The pair compared on the cases both ran: two flips one way, none the other.
            #expect(result.stdout.contains("plain vs short: 2 cases pass on plain only, 0 on short only, of 3 (McNemar p = 0.5)"),
                    "\(result.stdout)")
            #expect(result.stdout.contains("2 passed, 4 failed (1 script, 3 data rows, 2 targets, "))

            // A transcript per target and row, recording its row, that replays as it is.
            let transcript = try String(contentsOf: out.appendingPathComponent("plain/capitals.fr.tide"), encoding: .utf8)
            #expect(transcript.contains("@var id fr\n@var country France\n@var capital Paris\n"))
            #expect(transcript.contains("user: What is the capital of {{country}}?\nassistant: The capital of France is Paris.\n"))
            #expect(!transcript.contains("@data"))
            let short = try String(contentsOf: out.appendingPathComponent("short/capitals.de.tide"), encoding: .utf8)
            #expect(short.contains("@var capital Bonn, \"not\" Berlin\n"))
            let replayed = try TideProcess.run(["run", out.appendingPathComponent("plain/capitals.fr.tide").path])
            #expect(replayed.status == 0 && replayed.stdout.contains("reply confirmed by teacher forcing"), "\(replayed.stdout)")
        }

        @Test func reportsCarryTheTargetAndTheRow() throws {
            let file = try scriptFile()
            let json = try TideProcess.run(["run", "--json", "--parallel", "2"] + Self.targets + [file.path])
            let objects = json.jsonCases
            #expect(objects.map { "\($0["target"] ?? ""):\($0["row"] ?? "")" }
                        == ["plain:fr", "short:fr", "plain:it", "short:it", "plain:de", "short:de"])
            #expect(objects.map { $0["passed"] as? Int } == [1, 0, 1, 0, 0, 0])
            // The closing summary compares the targets, as the terminal's matrix does.
            let comparison = try #require((json.jsonSummary?["comparisons"] as? [[String: Any]])?.first, "\(json.stdout)")
            #expect(comparison["first"] as? String == "plain" && comparison["second"] as? String == "short")
            #expect(comparison["shared"] as? Int == 3 && comparison["only_first"] as? Int == 2 && comparison["only_second"] as? Int == 0)
            #expect(comparison["p_value"] as? Double == 0.5)
            #expect(json.jsonSummary?["cases"] as? Int == 6 && json.jsonSummary?["failed"] as? Int == 4)

            // Under --repeat, each case on each target is one object over its runs.
            let repeated = try TideProcess.run(["run", "--json", "--repeat", "2", "--parallel", "3"] + Self.targets + [file.path])
            let outcomes = repeated.jsonCases
            #expect(outcomes.map { "\($0["target"] ?? ""):\($0["row"] ?? ""):\($0["runs"] ?? "")" }
                        == ["plain:fr:2", "short:fr:2", "plain:it:2", "short:it:2", "plain:de:2", "short:de:2"])

            let tap = try TAPDocument(parsing: try TideProcess.run(["run", "--tap"] + Self.targets + [file.path]).stdout)
            #expect(tap.points.map(\.description).first == "plain: \(file.path)[fr]:6 expect: contains \"Paris\"")
            #expect(tap.points.count == 6)

            let report = file.deletingLastPathComponent().appendingPathComponent("junit.xml")
            _ = try TideProcess.run(["run", "-q", "--junit", report.path] + Self.targets + [file.path])
            let junit = try JUnitDocument(contentsOf: report)
            #expect(junit.suites.map { $0.attributes["name"] } == ["plain", "short"])
            #expect(junit.suites.map(\.cases.count) == [3, 3])
            #expect(junit.suites[0].cases.map { $0.attributes["classname"] } == ["capitals[fr]", "capitals[it]", "capitals[de]"])
        }

        /// A run against an earlier one's `--json`: cutting the second target's replies short
        /// turns its passes into new failures; against itself nothing changes, and under
        /// `--fail-on-regression` the case that failed in both does not fail the run.
        @Test func aBaselineTellsNewFailuresFromOldOnes() throws {
            let file = try scriptFile()
            let folder = file.deletingLastPathComponent()
            let baseline = folder.appendingPathComponent("baseline.json")
            let first = try TideProcess.run(["run", "--json", "--target", "plain:", "--target", "short:", file.path])
            #expect(first.status == 1, "the [de] row fails on both: \(first.stderr)")
            try first.stdout.write(to: baseline, atomically: true, encoding: .utf8)

            let same = try TideProcess.run(["run", "--baseline", baseline.path, "--fail-on-regression",
                                            "--target", "plain:", "--target", "short:", file.path])
            #expect(same.status == 0, "\(same.stdout)\n\(same.stderr)")
            #expect(same.stdout.contains("against the baseline \(baseline.path) (6 cases in both): no check changed beyond noise"))

            let html = folder.appendingPathComponent("report.html")
            let worse = try TideProcess.run(["run", "--baseline", baseline.path, "--fail-on-regression", "--html", html.path] + Self.targets
                                            + [file.path])
            #expect(worse.status == 1, "\(worse.stdout)\n\(worse.stderr)")
            #expect(worse.stdout.contains("(6 cases in both): 2 new failures; a regression"), "\(worse.stdout)")
            #expect(worse.stdout.contains("  new failure: short: \(file.path)[fr]:6 expect: contains \"Paris\": held then, failed now"))
            #expect(worse.stdout.contains("  new failure: short: \(file.path)[it]:6 expect: contains \"Rome\": held then, failed now"))
            let page = try String(contentsOf: html, encoding: .utf8)
            #expect(page.contains("<section id=\"baseline\"><h2>Against the baseline \(baseline.path)</h2>"))
            #expect(page.contains("<td>held</td><td>failed</td></tr>"))

            let json = try TideProcess.run(["run", "--json", "--baseline", baseline.path] + Self.targets + [file.path])
            #expect(json.status == 1, "without --fail-on-regression, any failure fails the run")
            let compared = try #require(json.jsonSummary?["baseline"] as? [String: Any], "\(json.stdout)")
            #expect(compared["regression"] as? Bool == true && compared["shared_cases"] as? Int == 6)
            #expect((compared["counts"] as? [String: Int])?["new_failure"] == 2)
            let changes = try #require(compared["changes"] as? [[String: Any]])
            #expect(changes.map { $0["case"] as? String } == ["short: \(file.path)[fr]", "short: \(file.path)[it]"])
            #expect(changes.map { ($0["then"] as? [String: Any])?["passed"] as? Bool } == [true, true])

            // A baseline that is not one is refused before anything is generated.
            let missing = try TideProcess.run(["run", "--baseline", folder.appendingPathComponent("none.json").path, file.path])
            #expect(missing.status == 2 && missing.stderr.contains("none.json: no such file; save an earlier run's report with tide run --json"))
            let text = folder.appendingPathComponent("notes.json")
            try "{\"file\": \"a.tide\", \"replies\": []}\nnot json\n".write(to: text, atomically: true, encoding: .utf8)
            let garbled = try TideProcess.run(["run", "--baseline", text.path, file.path])
            #expect(garbled.status == 2 && garbled.stderr.contains("notes.json:2: not a case of tide run --json (not JSON)"), "\(garbled.stderr)")
            #expect(garbled.stdout.isEmpty)
            let alone = try TideProcess.run(["run", "--fail-on-regression", file.path])
            #expect(alone.status == 2 && alone.stderr.contains("give it with --baseline RUN or --baseline FILE"))
        }

        @Test func goldenFilesAreKeptPerTargetAndRow() throws {
            let file = try scriptFile()
            let update = try TideProcess.run(["run", "-q", "--update"] + Self.targets + [file.path])
            #expect(update.status == 1)
            let folder = file.deletingLastPathComponent()
            // A run whose checks failed is recorded too; one that could not run would not be.
            for name in ["capitals.fr.plain", "capitals.it.short", "capitals.de.plain"] {
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name + ".golden.tide").path), "\(name)")
            }
            let check = try TideProcess.run(["run", "--check"] + Self.targets + [file.path])
            #expect(check.stdout.contains("plain: \(file.path)[fr]:5: PASS reply same as the golden transcript"), "\(check.stdout)")
            #expect(check.stdout.contains("short: \(file.path)[fr]:5: PASS reply same as the golden transcript"))
            // Each target is compared with its own golden file: the short target's replies differ from the plain one's.
            let plain = try String(contentsOf: folder.appendingPathComponent("capitals.fr.plain.golden.tide"), encoding: .utf8)
            let short = try String(contentsOf: folder.appendingPathComponent("capitals.fr.short.golden.tide"), encoding: .utf8)
            #expect(plain != short)
        }

        @Test func badDataStopsTheRunBeforeAnythingIsGenerated() throws {
            let file = try scriptFile()
            let data = file.deletingLastPathComponent().appendingPathComponent("rows.csv")
            try "id,country,capital\nfr,France,\"Paris\nit,Italy,Rome\n".write(to: data, atomically: true, encoding: .utf8)
            let unclosed = try TideProcess.run(["run", file.path])
            #expect(unclosed.status == 2)
            #expect(unclosed.stderr.contains("\(file.path):2: @data rows.csv: \(data.path):2:11: this quoted field is never closed"),
                    "\(unclosed.stderr)")
            #expect(unclosed.stderr.contains("nothing was replayed"))
            #expect(unclosed.stdout.isEmpty)

            try "id,country\nfr,France\nit,Italy\n".write(to: data, atomically: true, encoding: .utf8)
            let column = try TideProcess.run(["run", file.path])
            #expect(column.status == 2)
            #expect(column.stderr.contains("\(file.path):6:19: \(data.path):2 (row fr) has no column capital"), "\(column.stderr)")
            #expect(column.stderr.contains("(and 1 more of its 2 rows)"))

            // --data feeds a script without its own @data; --var gives what no row does.
            let plain = file.deletingLastPathComponent().appendingPathComponent("plain.tide")
            try Self.script.replacingOccurrences(of: "@data rows.csv\n", with: "").write(to: plain, atomically: true, encoding: .utf8)
            let fed = try TideProcess.run(["run", "--data", data.path, "--var", "capital=Paris", plain.path])
            #expect(fed.status == 1, "\(fed.stdout)\n\(fed.stderr)")
            #expect(fed.stdout.contains("\(plain.path)[fr]:5: PASS expect: contains \"Paris\""))
            #expect(fed.stdout.contains("\(plain.path)[it]:5: FAIL expect: contains \"Paris\""))
            let missing = try TideProcess.run(["run", "--var", "capital=Paris", plain.path])
            #expect(missing.status == 2 && missing.stderr.contains("\(plain.path):4:30: {{country}} has no value"), "\(missing.stderr)")
        }

        @Test func aValueWithQuotesAndLineBreaksIsOneLuaString() throws {
            let folder = try CommandLineTests.scratchFolder("matrix-lua")
            try #"{"id": "fr", "country": "France", "tricky": "a \"b\" \\ c\nd"}"#.write(
                to: folder.appendingPathComponent("rows.jsonl"), atomically: true, encoding: .utf8)
            let file = folder.appendingPathComponent("lua.tide")
            try Self.script.replacingOccurrences(of: "rows.csv", with: "rows.jsonl")
                .replacingOccurrences(of: "expect: contains \"{{capital}}\"", with: #"expect-lua: {{tricky}} == "a \"b\" \\ c\nd""#)
                .write(to: file, atomically: true, encoding: .utf8)
            let result = try TideProcess.run(["run", file.path])
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("\(file.path)[fr]:6: PASS expect-lua"), "\(result.stdout)")
        }

        @Test func targetsAndFilesThatWouldClashAreRefused() throws {
            let file = try scriptFile()
            let folder = file.deletingLastPathComponent()
            // Two models named alike, one with a quote in its path, would share a label.
            let models = try TideProcess.run(["run", "--model", "q4/it's/m.gguf", "--model", "q8/m.gguf", file.path])
            #expect(models.status != 0 && models.stderr.contains("two --model targets are named m after their files"), "\(models.stderr)")
            // Two scripts of one name would share a golden file in one --golden folder.
            let other = folder.appendingPathComponent("other")
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            try Self.rows.write(to: other.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
            try Self.script.write(to: other.appendingPathComponent("capitals.tide"), atomically: true, encoding: .utf8)
            let golden = try TideProcess.run(["run", "--update", "--golden", folder.appendingPathComponent("golden").path,
                                              file.path, other.appendingPathComponent("capitals.tide").path])
            #expect(golden.status == 2 && golden.stderr.contains("would both be written to"), "\(golden.stderr)")
            #expect(golden.stdout.isEmpty)
            // A single named target writes into its own folder, where a script of that name would be replaced.
            let named = folder.appendingPathComponent("out/plain")
            try FileManager.default.createDirectory(at: named, withIntermediateDirectories: true)
            try "@plugin \(ScratchPlugins.capitalsFile)\nuser: What is the capital of France?\nexpect: contains \"Paris\"\n"
                .write(to: named.appendingPathComponent("capitals.tide"), atomically: true, encoding: .utf8)
            let replaced = try TideProcess.run(["run", "--out", folder.appendingPathComponent("out").path, "--target", "plain:",
                                                named.appendingPathComponent("capitals.tide").path])
            #expect(replaced.status == 2 && replaced.stderr.contains("with its transcript; choose another folder"), "\(replaced.stderr)")
        }

        @Test func aServerIsATargetBesideALocalModel() async throws {
            let file = try scriptFile()
            let server = try await TideServer(["--plugin", ScratchPlugins.capitalsFile, "--parallel", "2"])
            defer { _ = server.terminate(waitingAtMost: .seconds(10)) }
            let script = Self.script.replacingOccurrences(of: "@plugin \(ScratchPlugins.capitalsFile)\n", with: "")
            try script.write(to: file, atomically: true, encoding: .utf8)
            let result = try TideProcess.run(["run", "-q", "--parallel", "2",
                                              "--target", "local: --plugin \(ScratchPlugins.capitalsFile)",
                                              "--target", "served: --remote \(server.url.absoluteString)", file.path])
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("4 passed, 2 failed (1 script, 3 data rows, 2 targets, "), "\(result.stdout)")
            #expect(result.stdout.contains("served: \(file.path)[de]:5: FAIL"))
        }
    }
}
