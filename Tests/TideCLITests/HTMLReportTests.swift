import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide run --html`: the page of a run with failures, loaded in headless Chromium by
    /// `scripts/report-dom.py`, which reads back what its DOM shows once the page's script has run,
    /// with the filters the address gives. The scripts' words are made certain by plugins, a
    /// grammar and recorded replies, so what the page shows holds on any machine.
    @Suite struct HTMLReportTests {
        static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }

        /// A recording the capitals plugin will not give: teacher forcing regenerates it, and the
        /// page shows the reply against it.
        static let forced = """
            # forced: a recorded reply the model does not give.
            @temperature 0
            @plugin \(ScratchPlugins.capitalsFile)
            user: What is the capital of France?
            assistant: The capital of France is Lyon.
            @generated stop="eos" tokens=7
            expect: contains "Paris"

            """

        /// The page of a run of four scripts on two targets, read back with `filters`.
        static func page(filters: String = "") throws -> [String: Any] {
            try read(try report(), filters: filters)
        }

        /// The page of a run of four scripts on two targets.
        static func report() throws -> URL {
            let folder = try CommandLineTests.scratchFolder("html")
            try RunMatrixTests.rows.write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
            try RunMatrixTests.script.write(to: folder.appendingPathComponent("capitals.tide"), atomically: true, encoding: .utf8)
            try forced.write(to: folder.appendingPathComponent("forced.tide"), atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(at: repository.appendingPathComponent("Conversations/tools.tide"),
                                             to: folder.appendingPathComponent("tools.tide"))
            try ("@model \(try ReasoningCommandTests.qwenThree().path)\n@temperature 0\n@max-tokens 40\n"
                + "@plugin \(try ReasoningCommandTests.plugin())\nuser: Capital of France?\nexpect: equals \"Paris.\"\n")
                .write(to: folder.appendingPathComponent("think.tide"), atomically: true, encoding: .utf8)
            let report = folder.appendingPathComponent("report.html")
            let run = try TideProcess.run(["run", "-q", "--html", report.path] + RunMatrixTests.targets + [folder.path])
            #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
            // The two targets compared on the six cases both ran, as the terminal's summary says.
            let page = try String(contentsOf: report, encoding: .utf8)
            let line = try #require(run.stdout.split(separator: "\n").first { $0.contains("plain vs short: ") }, "\(run.stdout)")
            let counts = line.split(whereSeparator: { !$0.isNumber && $0 != "." }).map(String.init)
            #expect(page.contains("<tr><th>plain vs short</th><td>6</td><td>\(counts[0])</td><td>\(counts[1])</td><td>\(counts[3])</td></tr>"),
                    "\(line)")
            return report
        }

        /// What Chromium shows of the page `report` with `filters` in its address.
        static func read(_ report: URL, filters: String) throws -> [String: Any] {
            let read = try TideProcess.run([repository.appendingPathComponent("scripts/report-dom.py").path, report.path, filters],
                                           program: URL(fileURLWithPath: "/usr/bin/python3"))
            #expect(read.status == 0, "\(read.stderr)")
            return try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any] ?? [:]
        }

        static func runs(_ page: [String: Any]) -> [[String: Any]] { page["runs"] as? [[String: Any]] ?? [] }
        static func rows(_ page: [String: Any]) -> [[String: Any]] { page["rows"] as? [[String: Any]] ?? [] }
        static func strings(_ value: Any?) -> [String] { value as? [String] ?? [] }

        @Test(.enabled(if: chromium != nil, "Chromium is not installed: make setup installs it (Debian's package chromium)"))
        func theBrowserShowsTheRun() throws {
            let page = try Self.page()
            #expect(page["shown"] as? String == "6 of 6 cases shown", "\(page)")
            #expect(Self.strings(page["external"]).isEmpty, "the page loads nothing from elsewhere")
            #expect((page["ready_ms"] as? Int ?? -1) >= 0, "the page's script ran")
            let rows = Self.rows(page)
            #expect(rows.map { ($0["case"] as? String ?? "").split(separator: "/").last.map(String.init) ?? "" }
                        == ["capitals.tide[fr]", "capitals.tide[it]", "capitals.tide[de]", "forced.tide", "think.tide", "tools.tide"])
            let germany = rows[2]
            #expect(germany["class"] as? String == "case fail")
            #expect((germany["cells"] as? [[String: Any]])?.map { $0["text"] as? String } == ["0/1", "0/1"])

            let runs = Self.runs(page)
            #expect(runs.count == 12)
            // Each reply with its checks, and why a failing one failed.
            let plainGermany = try #require(runs.first { ($0["id"] as? String) == "case-2-0" })
            #expect(Self.strings(plainGermany["answers"]) == ["The capital of Germany is Berlin."])
            let failing = (plainGermany["checks"] as? [[String: Any]])?.first
            #expect(failing?["class"] as? String == "check fail" && (failing?["text"] as? String ?? "").contains("it does not"))
            // The reply against its recording, word by word, and teacher forcing's verdict.
            let forced = try #require(runs.first { ($0["id"] as? String) == "case-3-0" })
            #expect(Self.strings(forced["removed"]).joined().contains("Lyon."), "\(forced)")
            #expect(Self.strings(forced["added"]).joined().contains("Paris."), "\(forced)")
            #expect(Self.strings(forced["forcing"]).first?.hasPrefix("recorded reply regenerated from token") == true, "\(forced)")
            // Reasoning and tool calls apart from the answer.
            let think = try #require(runs.first { ($0["id"] as? String) == "case-4-0" })
            #expect(Self.strings(think["reasoning"]) == ["Let me see."] && Self.strings(think["answers"]) == ["Paris."], "\(think)")
            let tools = try #require(runs.first { ($0["id"] as? String) == "case-5-0" })
            #expect(Self.strings(tools["tool_calls"]).first?.contains("\"calculate\"") == true, "\(tools)")
            #expect(!Self.strings(tools["forcing"]).isEmpty)
        }

        @Test func everyLinkOfARepeatedRunLeadsSomewhereAndVariablesStayOffThePage() throws {
            let folder = try CommandLineTests.scratchFolder("html-repeat")
            try RunMatrixTests.rows.write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
            try RunMatrixTests.script.write(to: folder.appendingPathComponent("capitals.tide"), atomically: true, encoding: .utf8)
            let report = folder.appendingPathComponent("report.html")
            let run = try TideProcess.run(["run", "-q", "--repeat", "2", "--parallel", "2", "--var", "token=hunter2", "--html", report.path]
                                          + RunMatrixTests.targets + [folder.appendingPathComponent("capitals.tide").path])
            #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
            let page = try String(contentsOf: report, encoding: .utf8)
            let ids = Set(page.matches(of: /id="([^"]+)"/).map { String($0.output.1) })
            let links = page.matches(of: /href="#([^"]+)"/).map { String($0.output.1) }
            // Each case's name in the matrix and above its runs, and each of its two cells, whose runs are numbered.
            #expect(links.count == 3 * 4 && links.allSatisfy(ids.contains), "\(links.filter { !ids.contains($0) })")
            // The command line is shown, but not what --var gave.
            #expect(page.contains("--var &#39;token=…&#39;") && !page.contains("hunter2"))
            // The targets compared, on the three cases both ran.
            #expect(page.contains("<section id=\"comparisons\">") && page.contains("<tr><th>plain vs short</th><td>3</td>"))
        }

        @Test(.enabled(if: chromium != nil, "Chromium is not installed: make setup installs it (Debian's package chromium)"))
        func theFiltersHideWhatTheyShould() throws {
            // A fragment that is not valid percent-encoding is left alone; the page still runs.
            let report = try Self.report()
            let mangled = try Self.read(report, filters: "target=%E0%A4%A&failed-only")
            #expect(mangled["shown"] as? String == "4 of 6 cases shown" && (mangled["ready_ms"] as? Int ?? -1) >= 0, "\(mangled)")

            let failed = try Self.read(report, filters: "failed-only&target=short")
            // On the short target every capitals row and the forced script fail; think and tools pass.
            #expect(failed["shown"] as? String == "4 of 6 cases shown", "\(failed)")
            let runs = Self.runs(failed)
            #expect(runs.filter { !($0["hidden"] as? Bool ?? true) }.allSatisfy { $0["target"] as? String == "short" })
            #expect(runs.filter { $0["target"] as? String == "plain" }.allSatisfy { $0["hidden"] as? Bool == true })
            for row in Self.rows(failed) where row["hidden"] as? Bool == false {
                let cells = row["cells"] as? [[String: Any]] ?? []
                #expect(cells.first?["hidden"] as? Bool == true && cells.last?["hidden"] as? Bool == false)
            }

            let calls = try Self.read(report, filters: "check=tool-call")
            #expect(calls["shown"] as? String == "1 of 6 cases shown", "\(calls)")
            let visible = Self.rows(calls).filter { !($0["hidden"] as? Bool ?? true) }
            #expect(visible.map { ($0["case"] as? String ?? "").hasSuffix("tools.tide") } == [true])
            // Within a shown run, only the checks of that kind.
            let tools = Self.runs(calls).filter { !($0["hidden"] as? Bool ?? true) }
            let checks = tools.flatMap { $0["checks"] as? [[String: Any]] ?? [] }.filter { !($0["hidden"] as? Bool ?? true) }
            #expect(!checks.isEmpty && checks.allSatisfy { $0["check"] as? String == "tool-call" })
        }
    }
}
