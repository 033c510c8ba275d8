import ArgumentParser
import Foundation
import TideLlama
import TideLua
import TideModels
import TidePluginHarness
import TideReports
import TideRunner

/// `tide plugins test [PATH ...]`: runs plugin test files (`NAME_test.lua`) in the sandbox,
/// without a model (docs/plugins.md, "Testing a plugin"). Exit status as `tide run`'s: 0 when
/// every test passed, 1 when one failed, 2 when a file could not run or none was found.
struct PluginTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run plugin test files (NAME_test.lua, beside NAME.lua) in the sandbox, without a model.",
        discussion: "A path is a test file, a plugin (its NAME_test.lua), or a folder (its *_test.lua files); "
            + "without one, ./Plugins, else the current folder. Exit status: 0 every test passed, 1 a test failed, "
            + "2 a file could not run or there was none.")

    @Argument(help: "Test files, plugins or folders.")
    var paths: [String] = []

    @Flag(name: .shortAndLong, help: "A line for every test, passed and pending ones too.")
    var verbose = false

    @Flag(help: "TAP version 14 on standard output instead of lines.")
    var tap = false

    @Option(help: ArgumentHelp("Also write JUnit XML to FILE.", valueName: "file"))
    var junit: String?

    @Flag(help: "Run again whenever a test file or a plugin in the folders given changes (Ctrl-C ends).")
    var watch = false

    func run() async throws {
        guard watch else { throw ExitCode(await runOnce()) }
        var seen = try RunCommand.orExit { try changes() }
        while true {
            let status = await runOnce()
            Terminal.write(TextStyle.standardOutput.dim("watching for changes (exit status now \(status); Ctrl-C ends)") + "\n")
            while true {
                try await Task.sleep(for: .milliseconds(300))
                let now = (try? changes()) ?? seen
                if now != seen {
                    seen = now
                    break
                }
            }
        }
    }

    /// The bundled model's tokenizer, read from its file without the weights, for tests that
    /// give a reply as token ids or as text; an error says how to install the model.
    @Sendable static func bundledVocabulary() throws -> ModelVocabulary {
        guard let entry = ModelRegistry.entry(named: ModelRegistry.defaultModelID) else {
            throw ValidationError("no bundled model in the registry")
        }
        let store = ModelStore.standard
        guard store.isInstalled(entry) else {
            throw ValidationError("\(entry.id) is not installed (`make setup` or `tide models pull \(entry.id)` installs it)")
        }
        let model = try LlamaModel.loadVocabulary(path: store.path(for: entry).path)
        return ModelVocabulary(vocabulary: model, bytes: { model.tokenBytes($0) })
    }

    /// Runs every test file found once, reporting; the exit status it comes to.
    private func runOnce() async -> Int32 {
        let files: [String]
        do {
            files = try testFiles()
        } catch {
            Terminal.warn("Error: \(error)")
            return 2
        }
        let start = ContinuousClock.now
        var reports: [PluginTestReport] = []
        for file in files {
            var test = PluginTestFile(path: file)
            test.modelVocabulary = Self.bundledVocabulary
            let report = await test.run()
            reports.append(report)
            if !tap {
                for line in PluginTestReports.lines(for: report, verbose: verbose, style: .standardOutput) { Terminal.write(line + "\n") }
            }
        }
        let seconds = (ContinuousClock.now - start).seconds
        let summary = PluginTestReports.summary(reports, seconds: seconds)
        if tap {
            for line in PluginTestReports.tap(reports) { Terminal.write(line + "\n") }
            Terminal.warn(summary)
        } else {
            Terminal.write(summary + "\n")
        }
        var status: Int32 = 0
        if let junit {
            do {
                try ScriptFiles.write(PluginTestReports.junit(reports, seconds: seconds), to: junit, what: "the JUnit report")
            } catch {
                Terminal.warn("Error: \(error)")
                status = 2
            }
        }
        if reports.contains(where: { $0.failure != nil || $0.results.isEmpty }) { return 2 }
        if reports.contains(where: { $0.results.contains { if case .failed = $0.outcome { true } else { false } } }) { return max(status, 1) }
        return status
    }

    /// The test files the paths name, in order, each once.
    private func testFiles() throws -> [String] {
        let given = paths.isEmpty ? [FileManager.default.fileExists(atPath: "Plugins") ? "Plugins" : "."] : paths
        var files: [String] = []
        for path in given {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ValidationError("no file or folder \(path): give test files (NAME_test.lua), plugins or folders")
            }
            if isFolder.boolValue {
                let found = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix("_test.lua") }.sorted()
                files += found.map { URL(fileURLWithPath: path).appendingPathComponent($0).relativePath }
            } else if path.hasSuffix("_test.lua") {
                files.append(path)
            } else if path.hasSuffix(".lua") {
                let test = String(path.dropLast(4)) + "_test.lua"
                guard FileManager.default.fileExists(atPath: test) else {
                    throw ValidationError("\(path) has no test file beside it: write \(test) (tide plugins new makes one)")
                }
                files.append(test)
            } else {
                throw ValidationError("\(path) is not a Lua file: give test files (NAME_test.lua), plugins or folders")
            }
        }
        guard !files.isEmpty else {
            throw ValidationError("no test files (NAME_test.lua) in \(given.joined(separator: ", "))")
        }
        var seen: Set<String> = []
        return files.filter { seen.insert($0).inserted }
    }

    /// When each Lua file of the paths (and the folders the files are in) last changed.
    private func changes() throws -> [String: Date] {
        let given = paths.isEmpty ? [FileManager.default.fileExists(atPath: "Plugins") ? "Plugins" : "."] : paths
        var folders: Set<String> = []
        for path in given {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            folders.insert(isFolder.boolValue ? path : URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        var dates: [String: Date] = [:]
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".lua") {
                let file = URL(fileURLWithPath: folder).appendingPathComponent(name).path
                dates[file] = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date
            }
        }
        return dates
    }
}
