import Foundation
import Synchronization
import Testing
import TideCore
import TideLog

/// The trace of hook calls as JSON Lines: one object a call, its fields in order, in a file
/// made where it is asked for; a file that cannot be made is refused, one that fills warns once.
@Suite struct HookTraceFileTests {
    let call = HookCall(plugin: "stop-on-pattern", hook: .stop, position: 37, given: "\"…a/b\"", outcome: "stop: matched",
                        instructions: 14, microseconds: 12.34)

    @Test func eachCallIsOneJSONLineWithItsSource() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString)/deeper")
        let path = folder.appendingPathComponent("t.jsonl").path
        let file = try HookTraceFile(path: path)
        file.trace(source: "a.tide").record(call)
        var prompt = call
        prompt.hook = .prompt
        prompt.position = nil
        prompt.instructions = nil
        file.trace().record(prompt)
        #expect(file.recordCount == 2)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == [
            #"{"source":"a.tide","plugin":"stop-on-pattern","hook":"should_stop","position":37,"given":"\"…a/b\"","outcome":"stop: matched","instructions":14,"microseconds":12.3}"#,
            #"{"plugin":"stop-on-pattern","hook":"on_prompt","given":"\"…a/b\"","outcome":"stop: matched","microseconds":12.3}"#,
        ])
        for line in lines { #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any]) }
    }

    @Test func aTraceThatCannotBeMadeIsRefusedAndOneThatFillsWarnsOnce() throws {
        #expect(throws: (any Error).self) { try HookTraceFile(path: "/etc/passwd/t.jsonl") }
        let warnings = Mutex<[String]>([])
        let full = try HookTraceFile(path: "/dev/full", warn: { message in warnings.withLock { $0.append(message) } })
        full.trace().record(call)
        full.trace().record(call)
        #expect(warnings.withLock { $0 }.count == 1)
        #expect(warnings.withLock { $0 }.first?.contains("/dev/full: the trace of hook calls stopped") == true)
        #expect(try HookTraceFile(path: nil).path == "stderr")
    }
}
