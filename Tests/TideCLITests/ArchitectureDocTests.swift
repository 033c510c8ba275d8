import Foundation
import Testing

/// docs/architecture.md's module table describes the package as it is: every target of
/// Package.swift in one row, each row's "depends on" exactly what its targets depend on there
/// (and Foundation where their code imports it), and no module imports what it does not declare.
@Suite struct ArchitectureDocTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A target of Package.swift: its name and what it depends on (targets and products, by name).
    struct Target {
        var name: String
        var dependencies: Set<String>
    }

    /// The modules a platform or the toolchain provides, which Package.swift does not list.
    static let platformModules: Set<String> = ["Foundation", "Glibc", "Darwin", "Dispatch", "Synchronization"]

    @Test func theModuleTableIsThePackage() throws {
        let targets = try Self.targets()
        let rows = try Self.moduleRows()
        let documented = rows.flatMap(\.modules)
        #expect(Set(documented) == Set(targets.keys), "docs/architecture.md's module table lists every target of Package.swift, and only those")
        #expect(documented.count == Set(documented).count, "each target is in one row")
        for row in rows {
            let declared = row.modules.compactMap { targets[$0] }.reduce(into: Set<String>()) { $0.formUnion($1.dependencies) }
                .subtracting(row.modules)
            let foundation = try row.modules.contains { try Self.imports(of: $0).contains("Foundation") }
            let expected = declared.union(foundation ? ["Foundation"] : [])
            #expect(row.dependencies == expected, """
                the row of \(row.modules.joined(separator: ", ")) says it depends on \(row.dependencies.sorted()), \
                and Package.swift and its imports say \(expected.sorted())
                """)
        }
    }

    @Test func everyImportIsDeclared() throws {
        for target in try Self.targets().values {
            let undeclared = try Self.imports(of: target.name).subtracting(target.dependencies).subtracting(Self.platformModules)
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring them in Package.swift")
        }
    }

    /// The targets of Package.swift, but the tests' own.
    static func targets() throws -> [String: Target] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: Target] = [:]
        var rest = manifest[...]
        while let start = [".target(", ".executableTarget(", ".systemLibrary("].compactMap({ rest.range(of: $0) })
            .min(by: { $0.lowerBound < $1.lowerBound })
        {
            let body = balanced(rest[start.upperBound...])
            rest = rest[body.endIndex...]
            guard let name = firstString(after: "name:", in: body), !body.contains("path: \"Tests/") else { continue }
            var dependencies = Set<String>()
            if let list = body.range(of: "dependencies:").map({ balanced(body[body[$0.upperBound...].firstIndex(of: "[")!...], open: "[", close: "]") }) {
                // A product is named by its name; the package it comes from is not a dependency's name.
                let names = list.replacingOccurrences(of: #"package:\s*"[^"]*""#, with: "", options: .regularExpression)
                dependencies = Set(strings(in: names[...]))
            }
            targets[name] = Target(name: name, dependencies: dependencies)
        }
        return targets
    }

    /// The rows of the table under `## Modules`: the modules of the first column, the names of the last.
    static func moduleRows() throws -> [(modules: [String], dependencies: Set<String>)] {
        let doc = try String(contentsOf: repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let section = doc.components(separatedBy: "\n## Modules\n")[1].components(separatedBy: "\n## ")[0]
        return section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let modules = cells[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"]) }
            let dependencies = cells[cells.count - 1] == "—" ? Set<String>()
                : Set(cells[cells.count - 1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            return (modules, dependencies)
        }
    }

    /// The modules a target's Swift files import.
    static func imports(of target: String) throws -> Set<String> {
        let folder = repository.appendingPathComponent("Sources/\(target)")
        guard let files = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var imports = Set<String>()
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            // An import stands at the start of its line (a script inside a string is indented).
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@") {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") }), index + 1 < words.count {
                    imports.insert(String(words[index + 1]))
                }
            }
        }
        return imports
    }

    /// The text from `text`'s start to the bracket that closes one opened just before it.
    static func balanced(_ text: Substring, open: Character = "(", close: Character = ")") -> Substring {
        var depth = text.first == open ? 0 : 1
        var inString = false
        for index in text.indices {
            let character = text[index]
            if character == "\"" { inString.toggle() }
            guard !inString else { continue }
            if character == open { depth += 1 }
            if character == close {
                depth -= 1
                if depth == 0 { return text[..<text.index(after: index)] }
            }
        }
        return text
    }

    static func strings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func firstString(after label: String, in text: Substring) -> String? {
        text.range(of: label).flatMap { strings(in: text[$0.upperBound...]).first }
    }
}
