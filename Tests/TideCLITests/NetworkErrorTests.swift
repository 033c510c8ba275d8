import Foundation
import Testing
import TideTestSupport

/// Network and OS errors are said with the host, port or path and what to do.
extension CommandLineTests {
    @Suite struct NetworkErrorTests {
        @Test func aBusyPortIsNamedWithTheFix() throws {
            let busy = FullListener()
            let result = try TideProcess.run(["serve", "--port", "\(busy.port)"], timeout: .seconds(120))
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("port \(busy.port) on 127.0.0.1 is in use by another program; pick another with --port"),
                    "\(result.stderr)")
            let nowhere = try TideProcess.run(["serve", "--host", "192.0.2.1", "--port", "\(LoopbackPort.free())"], timeout: .seconds(120))
            #expect(nowhere.status == 1)
            #expect(nowhere.stderr.contains("this machine has no address 192.0.2.1 to listen on; use --host 127.0.0.1"), "\(nowhere.stderr)")
        }

        @Test func aPullThatCannotReachItsServerNamesTheHost() throws {
            let cache = try CommandLineTests.scratchFolder("unreachable")
            let port = LoopbackPort.free()
            let refused = try TideProcess.run(["models", "pull", "http://127.0.0.1:\(port)/model.gguf"],
                                              environment: ["XDG_CACHE_HOME": cache.path], timeout: .seconds(120))
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("cannot reach 127.0.0.1:\(port) ("), "\(refused.stderr)")
            #expect(refused.stderr.contains("or give the model as a path to a .gguf file you have"))
            let unresolved = try TideProcess.run(["models", "pull", "http://no-such-host.invalid/model.gguf"],
                                                 environment: ["XDG_CACHE_HOME": cache.path], timeout: .seconds(120))
            #expect(unresolved.status == 1)
            #expect(unresolved.stderr.contains("cannot reach no-such-host.invalid ("), "\(unresolved.stderr)")
        }
    }
}
