import Foundation
import TideCore
import TideLua
import TideScript

extension ScriptFiles {
    /// `script`, read from the file at `origin`, as it must read when written to `folder`: every
    /// file it names by a relative path (``NamedFile``) is named from `folder`, and a plugin it
    /// names that was found beside `origin` (in its folder or a `Plugins` folder next to it) and
    /// would not be found the same from `folder` is named by its path. Absolute paths are kept,
    /// so a transcript written elsewhere replays as it is.
    public static func relocated(_ script: ConversationScript, from origin: String, to folder: URL) -> ConversationScript {
        let originFolder = URL(fileURLWithPath: URL(fileURLWithPath: origin).deletingLastPathComponent().standardizedFileURL.path,
                               isDirectory: true)
        let folder = URL(fileURLWithPath: folder.standardizedFileURL.path, isDirectory: true)
        guard originFolder.path != folder.path else { return script }
        func moved(_ path: String) -> String {
            guard !path.hasPrefix("/") else { return path }
            return relativePath(of: URL(fileURLWithPath: path, relativeTo: originFolder).standardizedFileURL, from: folder)
        }
        return script.mappingNamedFiles { named in
            switch named {
            case .file(let path): return moved(path)
            case .plugin(let text):
                guard var spec = try? PluginSpec(parsing: text) else { return text }
                if PluginSpec.isPath(spec.name) {
                    spec.name = moved(spec.name)
                } else {
                    let beside = PluginLocator(directories: [], includesShipped: false)
                    guard case .file(let found)? = try? beside.forScript(at: origin).locate(spec.name).origin,
                          (try? beside.forScript(at: folder.appendingPathComponent("script").path).locate(spec.name))?.origin
                          != .file(found)
                    else { return text }
                    spec.name = relativePath(of: found.standardizedFileURL, from: folder)
                }
                return spec.description
            }
        }
    }

    /// `file`'s path from `folder` (`../schemas/city.json`).
    static func relativePath(of file: URL, from folder: URL) -> String {
        let target = file.pathComponents, base = folder.pathComponents
        let shared = zip(target, base).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: base.count - shared) + target[shared...]).joined(separator: "/")
    }
}
