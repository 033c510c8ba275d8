import Foundation
import TideCore
import TideProvider
import TideScript

/// What decides a case's outcome, in four parts, each a SHA-256 digest (``FileDigest``): a run
/// journal replays a case again when a part differs from the one it kept, and says which.
public struct CaseIdentity: Sendable, Hashable, Codable {
    /// The script as it replays alone (its data row's values written in), the golden transcript
    /// it is compared with, and the files its checks and formats read.
    public var script: String
    /// The model: its file's contents, or its server and name; the defaults it brings; and the
    /// machine it runs on, when another is simulated (`TIDE_MACHINE`).
    public var model: String
    /// The plugins: each one's name, file contents, and the spec that loaded it with its options.
    public var plugins: String
    /// Everything else that decides a reply: the model setup (template, context size, …), the
    /// parameters before the script's directives, the run's seed offset, teacher forcing or not,
    /// the policies, MCP servers, the judge, and Tide's version.
    public var settings: String

    /// An identity of these parts.
    public init(script: String, model: String, plugins: String, settings: String) {
        self.script = script
        self.model = model
        self.plugins = plugins
        self.settings = settings
    }

    /// The parts that differ from `earlier`'s, as a report says them: `its script changed`, …
    public func changes(since earlier: CaseIdentity) -> [String] {
        [(script != earlier.script, "its script changed"), (model != earlier.model, "its model changed"),
         (plugins != earlier.plugins, "its plugins changed"), (settings != earlier.settings, "its settings changed")]
            .filter(\.0).map(\.1)
    }
}

extension ScriptRunner {
    /// The identity of the replay of `prepared`, the script at `file`, on `model`, compared with `golden`.
    func identity(of prepared: PreparedScript, file: String, model: any ChatModel, golden: ConversationScript?) -> CaseIdentity {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        let checkedFiles = prepared.interpreter.steps.flatMap { step -> [String] in
            guard case .reply(let reply) = step else { return [] }
            return reply.expectations.compactMap { $0.expectation.check.namedFile }
        }
        let script = FileDigest.of([prepared.script.recordingVariables().printed(), golden?.printed() ?? ""]
            + checkedFiles.map { fileDigest.of(file: URL(fileURLWithPath: $0, relativeTo: folder).path) ?? "no file \($0)" }
            + prepared.interpreter.formats.sorted { $0.key < $1.key }.map { "\($0.key) " + Self.json($0.value) })
        // A simulated machine (TIDE_MACHINE) scores otherwise than this one.
        let machine = (model as? LocalModel).map { "\($0.machine)" } ?? ""
        let modelPart = FileDigest.of([fileDigest.of(file: model.identifier) ?? model.identifier, model.name,
                                       String(describing: model.defaults), machine])
        let plugins = prepared.commandLinePlugins + prepared.interpreter.plugins.sorted { $0.key < $1.key }.map(\.value.plugin)
        let pluginPart = FileDigest.of(plugins.flatMap { plugin in
            [plugin.name, plugin.specification, fileDigest.of(file: plugin.path) ?? plugin.path]
        })
        let settings = FileDigest.of([
            tideVersion, String(describing: prepared.setup), Self.json(prepared.parameters), seedOffset.map(String.init) ?? "",
            "\(regenerate) \(rejudge) \(overflow) \(hookErrorPolicy) \(limits) \(regexBudget)", judge ?? prepared.judge ?? "",
            mcp.joined(separator: "\n"), embedder.map { String(describing: type(of: $0)) } ?? "",
        ])
        return CaseIdentity(script: script, model: modelPart, plugins: pluginPart, settings: settings)
    }

    /// `value` as JSON with sorted keys, the same bytes for the same value.
    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
    }
}
