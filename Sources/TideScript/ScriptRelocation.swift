import Foundation

extension ConversationScript {
    /// The script as it must read when written to `folder` instead of `origin`, its own folder:
    /// the schema and grammar files it names by a relative path (`@json-schema`, `@grammar`,
    /// `expect: json-schema`) are named relative to `folder`, so a transcript written elsewhere
    /// still finds them. Absolute paths are kept.
    public func relocated(from origin: URL, to folder: URL) -> ConversationScript {
        let origin = URL(fileURLWithPath: origin.standardizedFileURL.path, isDirectory: true)
        let folder = URL(fileURLWithPath: folder.standardizedFileURL.path, isDirectory: true)
        guard origin.path != folder.path else { return self }
        func moved(_ path: String) -> String {
            guard !path.hasPrefix("/") else { return path }
            return Self.relativePath(of: URL(fileURLWithPath: path, relativeTo: origin).standardizedFileURL, from: folder)
        }
        var script = self
        for index in script.entries.indices {
            switch script.entries[index].item {
            case .directive(.format(.jsonSchema(let file))):
                script.entries[index].item = .directive(.format(.jsonSchema(file: moved(file))))
            case .directive(.format(.grammar(let file))):
                script.entries[index].item = .directive(.format(.grammar(file: moved(file))))
            case .expectation(var expectation):
                guard case .jsonSchema(let file) = expectation.check else { continue }
                expectation.check = .jsonSchema(file: moved(file))
                script.entries[index].item = .expectation(expectation)
            default: continue
            }
        }
        return script
    }

    /// `file`'s path from `folder` (`../schemas/city.json`).
    static func relativePath(of file: URL, from folder: URL) -> String {
        let target = file.pathComponents, base = folder.pathComponents
        let shared = zip(target, base).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: base.count - shared) + target[shared...]).joined(separator: "/")
    }
}
