import Foundation
import TideCore
import TideScript

/// What Tab does with the text before the cursor: command names after `/`, plugin names after
/// `/load`, `/unload` and `/reload`, parameter names after `/set`, model names after `/model`,
/// `on` and `off` after `/trace`, and paths after `/save`, `/open` and `/trace on`.
public struct TabCompletion: Sendable, Hashable {
    /// Text to insert at the cursor (the rest of the only candidate, or what all candidates share).
    public var insert: String
    /// Candidates to list when they share nothing more than what was typed.
    public var candidates: [String]

    /// A completion.
    public init(insert: String, candidates: [String]) {
        self.insert = insert
        self.candidates = candidates
    }

    /// What to complete, given the names that can be offered.
    public struct Vocabulary: Sendable {
        /// Plugins that can be loaded.
        public var availablePlugins: [String]
        /// Plugins loaded now.
        public var loadedPlugins: [String]
        /// Models the registry names.
        public var models: [String]

        /// The names to offer.
        public init(availablePlugins: [String], loadedPlugins: [String], models: [String]) {
            self.availablePlugins = availablePlugins
            self.loadedPlugins = loadedPlugins
            self.models = models
        }
    }

    /// The completion of `before` (the line up to the cursor), or `nil` when there is none.
    public init?(before: String, vocabulary: Vocabulary) {
        guard before.hasPrefix("/") else { return nil }
        let words = before.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let word = words.last ?? ""
        let options: [String]
        var ending = " "
        switch (words.count, words.first ?? "") {
        case (1, _): options = SlashCommand.names.map { "/" + $0 }
        case (2, "/load"): options = vocabulary.availablePlugins
        case (2, "/unload"), (2, "/reload"): options = vocabulary.loadedPlugins
        case (2, "/set"): options = ChatController.settingNames
        case (2, "/model"): options = vocabulary.models
        case (2, "/trace"): options = ["on", "off"]
        case (2, "/save"), (2, "/open"), (3, "/set"), (3, "/trace"):
            // A file: what /save and /open take, /set json-schema or grammar, and /trace on.
            guard words.count == 2 || ["json-schema", "grammar", "on"].contains(words[1]) else { return nil }
            options = Self.paths(startingWith: word)
            ending = ""
        default: return nil
        }
        let matches = Array(Set(options.filter { $0.hasPrefix(word) })).sorted()
        guard let first = matches.first else { return nil }
        if matches.count == 1 {
            insert = String(first.dropFirst(word.count)) + (first.hasSuffix("/") ? "" : ending)
            candidates = []
            return
        }
        let shared = matches.dropFirst().reduce(first) { String($0.commonPrefix(with: $1)) }
        insert = String(shared.dropFirst(word.count))
        candidates = insert.isEmpty ? matches : []
    }

    /// Files and folders (with a trailing `/`) whose path starts with `prefix`.
    static func paths(startingWith prefix: String) -> [String] {
        let folder = prefix.contains("/") ? String(prefix[...prefix.lastIndex(of: "/")!]) : ""
        let expanded = (folder.isEmpty ? "." : NSString(string: folder).expandingTildeInPath)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: expanded)) ?? []
        let showHidden = prefix.dropFirst(folder.count).hasPrefix(".")
        return names.filter { !$0.hasPrefix(".") || showHidden }.map { name in
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: expanded + "/" + name, isDirectory: &isFolder)
            return folder + name + (exists && isFolder.boolValue ? "/" : "")
        }
    }
}
