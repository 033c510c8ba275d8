import CLuaShim
import Foundation
import Synchronization
import TideCore
import TideLua

/// A plugin test file (`NAME_test.lua`, docs/plugins.md, "Testing a plugin"): tests in the style
/// of busted (`describe`, `it`, `before_each`, `assert.equals`, …), run in Tide's own sandbox,
/// each in a protected call under the plugin limits, against the plugin beside it (`NAME.lua`)
/// driven through scripted replies (``PluginDriver``). No model is needed.
///
/// ```swift
/// let report = await PluginTestFile(path: "Plugins/word-budget_test.lua").run()
/// print(report.results.map(\.name))
/// ```
public struct PluginTestFile: Sendable {
    /// The test file.
    public let path: String
    /// Where plugins named by name are found.
    public var locator = PluginLocator.standard
    /// The limits of each test (and of each plugin it loads): those of a hook.
    public var limits = LuaLimits()
    /// Loads the real model's tokenizer, for replies given as token ids or as text
    /// (`p:reply{ids = …}`); `nil`: such a reply fails its test, saying so.
    public var modelVocabulary: (@Sendable () throws -> ModelVocabulary)?

    /// The test file at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The plugin the file tests: `NAME.lua` beside `NAME_test.lua`, when there is one.
    public var pluginUnderTest: String? {
        let url = URL(fileURLWithPath: path)
        let name = url.deletingPathExtension().lastPathComponent
        guard name.hasSuffix("_test") else { return nil }
        let plugin = url.deletingLastPathComponent().appendingPathComponent(String(name.dropLast(5)) + ".lua")
        return FileManager.default.fileExists(atPath: plugin.path) ? plugin.path : nil
    }

    /// The test file's tests, run in order on a thread of their own (a test waits there while
    /// Tide replies); a file that does not load is one failure, saying why.
    public func run() async -> PluginTestReport {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: runHere()) }
            thread.name = "tide plugin test"
            thread.start()
        }
    }

    /// ``run()`` on this thread, which blocks while each reply is made.
    private func runHere() -> PluginTestReport {
        var report = PluginTestReport(path: path)
        let driver = PluginDriver(pluginUnderTest: pluginUnderTest, locator: locator, limits: limits,
                                  modelVocabulary: modelVocabulary)
        let source: String
        do {
            source = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            report.failure = "\(path): cannot be read (\(error.localizedDescription))"
            return report
        }
        let lua: LuaState
        do {
            lua = try LuaState(limits: limits)
        } catch {
            report.failure = "\(path): \(error.message)"
            return report
        }
        let host = HarnessHost(driver: driver, limit: limits.time)
        let context = Unmanaged.passUnretained(host).toOpaque()
        for function in ["_load", "_reply", "_logits", "_tool_call", "_tool_result", "_run_tool", "_print"] {
            lua.addHostFunction(function, harnessHostFunction, context: context)
        }
        do {
            try lua.run(String(decoding: PackageResources.harness_lua, as: UTF8.self), chunkName: "=harness")
            try lua.run(source, chunkName: "@" + path)
        } catch {
            report.failure = error.message
            return withExtendedLifetime(host) { report }
        }
        let count = (try? lua.callTideFunction("test_count", arguments: []).wholeNumber) ?? 0
        for index in 1...max(count, 1) where count > 0 {
            let name = (try? lua.callTideFunction("test_name", arguments: [.integer(Int64(index))]).string) ?? "test \(index)"
            let start = ContinuousClock.now
            let outcome: PluginTestResult.Outcome
            do {
                let said = try lua.callTideFunction("run_test", arguments: [.integer(Int64(index))])
                outcome = said == .string("pending") ? .pending : .passed
            } catch {
                outcome = .failed(Self.failure(error))
            }
            report.results.append(PluginTestResult(name: name, outcome: outcome, seconds: (ContinuousClock.now - start).seconds))
        }
        return withExtendedLifetime(host) { report }
    }

    /// A failed test's message: the error's (where and what, every line of it), and the limit
    /// that stopped it when one did.
    private static func failure(_ error: LuaError) -> String {
        // The message without the traceback the sandbox appends (it names the harness's frames).
        var first = error.message.components(separatedBy: "\nstack traceback:").first ?? error.message
        // A limit is raised where the harness called the test, which says nothing to its reader.
        if first.hasPrefix("harness:"), let colon = first.dropFirst(8).firstIndex(of: ":") {
            first = String(first[first.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        switch error.kind {
        case .instructionBudget: return first + " (the test ran past its instruction budget: a loop that never ends?)"
        case .memoryLimit: return first + " (the test ran past the memory limit)"
        case .timeLimit: return first + " (the test ran past its time limit)"
        default: return first
        }
    }
}

/// The tests of one file, and how each went.
public struct PluginTestReport: Sendable {
    /// The test file.
    public let path: String
    /// Each test in order.
    public var results: [PluginTestResult] = []
    /// Why the file could not be run (it does not read, load or compile); `nil` when it ran.
    public var failure: String?

    /// A report of the file at `path` with nothing run yet.
    public init(path: String) {
        self.path = path
    }
}

/// How one test went.
public struct PluginTestResult: Sendable, Hashable {
    /// What a test came to.
    public enum Outcome: Sendable, Hashable {
        case passed
        /// Failed: an assertion, an error of the test or of its plugin, a limit; where and why.
        case failed(String)
        /// Declared with `pending`, not run.
        case pending
    }

    /// Its name: its `describe` blocks' names and its own, joined by spaces.
    public let name: String
    public let outcome: Outcome
    public let seconds: Double
}

/// The host side of the harness's functions in a test file's state.
private final class HarnessHost: Sendable {
    let driver: PluginDriver
    /// The longest one call may take: a test's time limit.
    let limit: Duration
    init(driver: PluginDriver, limit: Duration) {
        self.driver = driver
        self.limit = limit
    }

    /// Serves one call on the test's thread, waiting for the driver's answer at most ``limit``.
    func serve(_ function: String, request: String) -> Result<String, HarnessFailure> {
        let answer = Mutex<Result<String, HarnessFailure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task.detached { [driver] in
            let result = await driver.serve(function, request)
            answer.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + limit.seconds) == .success else {
            task.cancel()
            return .failure(HarnessFailure("the harness's answer took longer than the test's time limit (\(limit.seconds) s)"))
        }
        return answer.withLock { $0 } ?? .failure(HarnessFailure("the harness gave no answer"))
    }
}

/// The C entry point of the harness's functions.
private let harnessHostFunction: tide_host_function = { context, name, input, output in
    guard let context, let name, let input, let output else { return }
    let host = Unmanaged<HarnessHost>.fromOpaque(context).takeUnretainedValue()
    let request = input.pointee.text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: input.pointee.text_length), as: UTF8.self) } ?? ""
    switch host.serve(String(cString: name), request: request) {
    case .success(let text):
        let bytes = Array(text.utf8).map { CChar(bitPattern: $0) }
        let buffer = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
        buffer.initialize(from: bytes, count: bytes.count)
        output.pointee.text = buffer
        output.pointee.text_length = bytes.count
        output.pointee.has_text = 1
    case .failure(let failure):
        output.pointee.error = strdup(failure.description)
    }
}
