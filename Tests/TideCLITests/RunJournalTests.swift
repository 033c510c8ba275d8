import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide run`'s journal: a run killed at any moment resumes to the report an uninterrupted
    /// run gives; a resumed run replays what it lacks and what changed, saying why; `tide runs`
    /// reads the runs back. Every reply's words are certain (the capitals plugin, or the
    /// misbehaving server's fixed reply), so the reports compare whole; the runs that are
    /// stopped wait at a gate the test opens, so they stop where the test says on any machine;
    /// each test has a journal of its own (`XDG_DATA_HOME`).
    @Suite struct RunJournalTests {
        static let countries = ["France", "Italy", "Germany", "Spain"]

        /// A folder of `count` scripts, each asking the four capitals (in a turned order), and a
        /// data folder of its own.
        func scripts(_ count: Int) throws -> (folder: URL, environment: [String: String]) {
            let folder = try CommandLineTests.scratchFolder("journal")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("scripts"), withIntermediateDirectories: true)
            for index in 0..<count {
                let turns = (0..<4).map { Self.countries[($0 + index) % 4] }.map {
                    "user: What is the capital of \($0)?\nexpect: contains \"\($0 == "France" ? "Paris" : $0 == "Italy" ? "Rome" : $0 == "Germany" ? "Berlin" : "Madrid")\"\n"
                }.joined()
                try "@temperature 0\n@max-tokens 16\n\(turns)".write(to: folder.appendingPathComponent("scripts/s\(index).tide"),
                                                                   atomically: true, encoding: .utf8)
            }
            return (folder, ["XDG_DATA_HOME": folder.appendingPathComponent("data").path])
        }

        /// The cases' objects of a `--json` report with their times left out, and its summary's counts.
        func comparable(_ stdout: String) -> [String] {
            stdout.split(separator: "\n").compactMap { line -> String? in
                guard var object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
                object["seconds"] = nil
                if var summary = object["summary"] as? [String: Any] {
                    summary["seconds"] = nil
                    object["summary"] = summary
                }
                if let replies = object["replies"] as? [[String: Any]] {
                    object["replies"] = replies.map { reply in
                        reply.filter { !["time_to_first_token", "tokens_per_second"].contains($0.key) }
                    }
                }
                return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
            }
        }

        /// The runs the journal lists, newest first.
        func runs(_ environment: [String: String], in folder: URL) throws -> [[String: Any]] {
            try BackgroundRun.runs(environment: environment, in: folder)
        }

        /// Starts `tide run ARGUMENTS` in `folder`, and once the journal keeps `kept` runs of
        /// cases of its run numbered `run`, sends it `signal`; returns its exit status and its
        /// standard error.
        func interrupt(_ arguments: [String], in folder: URL, environment: [String: String], run: Int, after kept: Int,
                       with signal: Int32) throws -> (status: Int32, stderr: String) {
            let background = try BackgroundRun(arguments, in: folder, environment: environment)
            try background.wait(untilRun: run, keeps: kept)
            background.send(signal)
            return try background.finish()
        }

        /// A folder of `count` scripts for the misbehaving server, each a turn answered "Hello
        /// there.", those numbered in `gates` only once their gate's file exists: a run waits
        /// there, whatever the machine's speed, until the test opens the gate.
        func gatedScripts(_ count: Int, gates: [Int: URL]) throws -> (folder: URL, environment: [String: String]) {
            let folder = try CommandLineTests.scratchFolder("journal-gated")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("scripts"), withIntermediateDirectories: true)
            for index in 0..<count {
                let turn = gates[index].map { "gate \($0.path)" } ?? "hello \(index)"
                try "user: \(turn)\nexpect: contains \"Hello there.\"\n"
                    .write(to: folder.appendingPathComponent("scripts/s\(index).tide"), atomically: true, encoding: .utf8)
            }
            return (folder, ["XDG_DATA_HOME": folder.appendingPathComponent("data").path])
        }

        /// Opens a gate of ``gatedScripts(_:gates:)``.
        func open(_ gate: URL) throws {
            try Data().write(to: gate)
        }

        @Test func aKilledRunResumesToTheReportOfAnUninterruptedOne() async throws {
            let server = try await MisbehavingServer()
            let gates = FileManager.default.temporaryDirectory.appendingPathComponent("tide-gates-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: gates, withIntermediateDirectories: true)
            let (first, second) = (gates.appendingPathComponent("first"), gates.appendingPathComponent("second"))
            let (folder, environment) = try gatedScripts(8, gates: [1: first, 3: second])
            let arguments = ["run", "--json", "--remote", server.url.absoluteString, "scripts"]

            // Killed while the second case waits at its gate, then while the fourth does: each time
            // only the case in flight is lost.
            var command = arguments
            for (kept, gate) in [(1, first), (3, second)] {
                let killed = try interrupt(command, in: folder, environment: environment, run: 1, after: kept, with: SIGKILL)
                #expect(killed.status == SIGKILL, "\(killed.stderr)")
                let run = try #require(try runs(environment, in: folder).first)
                #expect(run["finished"] == nil && run["kept"] as? Int == kept, "\(run)")
                try open(gate)
                command = ["run", "--resume"] + arguments.dropFirst()
            }
            let resumed = try TideProcess.run(command, environment: environment, workingDirectory: folder)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("resumed run 1: 3 of 8 runs of cases kept from before, 5 run for the first time"), "\(resumed.stderr)")
            let run = try #require(try runs(environment, in: folder).first)
            #expect(run["finished"] != nil && run["kept"] as? Int == 8 && run["passed"] as? Int == 8)

            // The same run whole, uninterrupted, reports the same.
            let whole = try TideProcess.run(arguments, environment: environment, workingDirectory: folder)
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect(comparable(resumed.stdout) == comparable(whole.stdout))
            #expect(comparable(resumed.stdout).count == 9)

            // Its report again, from the journal alone.
            let report = try TideProcess.run(["runs", "report", "1", "--json"], environment: environment, workingDirectory: folder)
            #expect(report.status == 0)
            #expect(comparable(report.stdout) == comparable(whole.stdout))
        }

        @Test func ctrlCSaysHowToResume() async throws {
            let server = try await MisbehavingServer()
            let gate = FileManager.default.temporaryDirectory.appendingPathComponent("tide-gate-\(UUID().uuidString)")
            let (folder, environment) = try gatedScripts(6, gates: [2: gate])
            let arguments = ["run", "-q", "--remote", server.url.absoluteString, "scripts"]
            let stopped = try interrupt(arguments, in: folder, environment: environment, run: 1, after: 2, with: SIGINT)
            #expect(stopped.status == 130)
            #expect(stopped.stderr.contains("interrupted: the cases that finished are kept in run 1; go on with\n"
                                            + "  tide run --resume 1 -q --remote \(server.url.absoluteString) scripts"), "\(stopped.stderr)")
            try open(gate)
            let resumed = try TideProcess.run(["run", "--resume", "1"] + arguments.dropFirst(), environment: environment,
                                              workingDirectory: folder)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stdout.contains("6 passed, 0 failed (6 scripts, "), "\(resumed.stdout)")
            #expect(resumed.stdout.contains("resumed run 1: 2 of 6 runs of cases kept from before, 4 run for the first time"), "\(resumed.stdout)")
        }

        /// A case whose script or plugin changed is replayed, and the summary says which and why;
        /// a resume that cannot be is refused, saying what to do.
        @Test func resumingReplaysWhatChangedAndSaysWhy() throws {
            let (folder, environment) = try scripts(3)
            let plugin = folder.appendingPathComponent("capitals.lua")
            try FileManager.default.copyItem(atPath: ScratchPlugins.capitalsFile, toPath: plugin.path)
            let arguments = ["run", "-q", "--plugin", "capitals.lua", "scripts"]
            let first = try TideProcess.run(arguments, environment: environment, workingDirectory: folder)
            #expect(first.status == 0, "\(first.stderr)")
            let kept = try TideProcess.run(["run", "--resume", "1"] + arguments.dropFirst(), environment: environment, workingDirectory: folder)
            #expect(kept.status == 0 && kept.stdout.contains("resumed run 1: 3 of 3 runs of cases kept from before, 0 run for the first time"),
                    "\(kept.stdout)")

            let script = folder.appendingPathComponent("scripts/s1.tide")
            try (try String(contentsOf: script, encoding: .utf8) + "# edited\n").write(to: script, atomically: true, encoding: .utf8)
            let edited = try TideProcess.run(["run", "--resume", "1"] + arguments.dropFirst(), environment: environment, workingDirectory: folder)
            #expect(edited.stdout.contains("resumed run 1: 2 of 3 runs of cases kept from before, 1 run again "
                                           + "(its script changed: scripts/s1.tide), 0 run for the first time"), "\(edited.stdout)")
            try (try String(contentsOf: plugin, encoding: .utf8) + "\n-- edited\n").write(to: plugin, atomically: true, encoding: .utf8)
            let replugged = try TideProcess.run(["run", "--resume", "1"] + arguments.dropFirst(), environment: environment,
                                                workingDirectory: folder)
            #expect(replugged.stdout.contains("3 run again (its plugins changed: scripts/s0.tide, scripts/s1.tide, scripts/s2.tide)"),
                    "\(replugged.stdout)")

            let none = try TideProcess.run(["run", "--resume", "9"] + arguments.dropFirst(), environment: environment, workingDirectory: folder)
            #expect(none.status == 2 && none.stderr.contains("there is no run 9 in the journal (tide runs list shows the runs kept)"))
            let other = try TideProcess.run(["run", "--resume", "1", "scripts"], environment: environment, workingDirectory: folder)
            #expect(other.status == 2 && other.stderr.contains("run 1 was `tide run -q --plugin capitals.lua scripts`, not `tide run scripts`: "
                                                               + "resume it with its own arguments"), "\(other.stderr)")
            let finished = try TideProcess.run(["run", "--resume"] + arguments.dropFirst(), environment: environment, workingDirectory: folder)
            #expect(finished.status == 2 && finished.stderr.contains("no unfinished run of these arguments in this folder"))
            let otherFolder = folder.appendingPathComponent("copy")
            try FileManager.default.createDirectory(at: otherFolder, withIntermediateDirectories: true)
            for name in ["scripts", "capitals.lua"] {
                try FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: otherFolder.appendingPathComponent(name))
            }
            let elsewhere = try TideProcess.run(["run", "--resume", "1"] + arguments.dropFirst(), environment: environment,
                                                workingDirectory: otherFolder)
            #expect(elsewhere.status == 2 && elsewhere.stderr.contains("run 1 ran in \(folder.path): resume it from there"), "\(elsewhere.stderr)")
        }

        /// `tide runs` lists the runs, shows one's cases and what it lacks, and makes its
        /// reports again with the run's exit status.
        @Test func runsAreListedShownAndReportedAgain() throws {
            let (folder, environment) = try scripts(2)
            let failing = folder.appendingPathComponent("scripts/s1.tide")
            try (try String(contentsOf: failing, encoding: .utf8) + "expect: contains \"Lisbon\"\n")
                .write(to: failing, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", "--plugin", ScratchPlugins.capitalsFile, "scripts"], environment: environment,
                                          workingDirectory: folder)
            #expect(run.status == 1)
            let listed = try TideProcess.run(["runs"], environment: environment, workingDirectory: folder)
            #expect(listed.stdout.contains("finished  8 passed, 1 failed"), "\(listed.stdout)")
            let shown = try TideProcess.run(["runs", "show", "1"], environment: environment, workingDirectory: folder)
            #expect(shown.stdout.contains("scripts/s0.tide  4/4") && shown.stdout.contains("scripts/s1.tide  4/5"), "\(shown.stdout)")
            let html = folder.appendingPathComponent("report.html")
            let junit = folder.appendingPathComponent("report.xml")
            let report = try TideProcess.run(["runs", "report", "1", "--html", html.path, "--junit", junit.path],
                                             environment: environment, workingDirectory: folder)
            #expect(report.status == 1)
            #expect(report.stdout.contains("scripts/s1.tide:11: FAIL expect: contains \"Lisbon\""), "\(report.stdout)")
            #expect(report.stdout.contains("8 passed, 1 failed (2 scripts, "))
            #expect(try String(contentsOf: html, encoding: .utf8).contains("scripts/s0.tide"))
            #expect(try JUnitDocument(contentsOf: junit).suites.flatMap(\.cases).count == 9)
            // A kept run is a baseline: the check that failed then fails now, which is no regression.
            let again = try TideProcess.run(["run", "-q", "--baseline", "1", "--fail-on-regression", "--plugin", ScratchPlugins.capitalsFile,
                                             "scripts"], environment: environment, workingDirectory: folder)
            #expect(again.status == 0, "\(again.stdout)\n\(again.stderr)")
            #expect(again.stdout.contains("against the baseline run 1 (2 cases in both): no check changed beyond noise"), "\(again.stdout)")
            let noBaseline = try TideProcess.run(["run", "--baseline", "7", "scripts"], environment: environment, workingDirectory: folder)
            #expect(noBaseline.status == 2 && noBaseline.stderr.contains("there is no run 7 in the journal"))
            let missing = try TideProcess.run(["runs", "show", "5"], environment: environment, workingDirectory: folder)
            #expect(missing.status != 0 && missing.stderr.contains("there is no run 5 in the journal"))
            let removed = try TideProcess.run(["runs", "remove", "--keep", "1"], environment: environment, workingDirectory: folder)
            #expect(removed.stdout == "removed 1 run: 1\n", "\(removed.stdout)\(removed.stderr)")
            #expect(try runs(environment, in: folder).map { $0["id"] as? Int } == [2])
        }
    }
}
