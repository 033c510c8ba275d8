import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// docs/plugin-tutorial.md, run as written: each block naming a file is written there, and
    /// each `console` block's commands run in order and print what it shows (times aside).
    @Suite struct PluginTutorialTests {
        static let tutorial = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/plugin-tutorial.md")

        /// A block of the tutorial: its info string's words and its lines.
        struct Block {
            var info: [String]
            var lines: [String]
        }

        /// The fenced blocks of `text`, in order (a fence closes on a line that is only ```).
        static func blocks(_ text: String) -> [Block] {
            var blocks: [Block] = []
            var open: Block?
            for line in text.components(separatedBy: "\n") {
                if var block = open {
                    if line == "```" {
                        blocks.append(block)
                        open = nil
                    } else {
                        block.lines.append(line)
                        open = block
                    }
                } else if line.hasPrefix("```") {
                    open = Block(info: line.dropFirst(3).split(separator: " ").map(String.init), lines: [])
                }
            }
            return blocks
        }

        /// `text` with every duration (`1.8 s`) written `_ s`.
        static func timeless(_ text: String) -> String {
            text.replacingOccurrences(of: #"[0-9]+\.[0-9]+ s"#, with: "_ s", options: .regularExpression)
        }

        @Test func theTutorialRunsAsWritten() throws {
            let folder = try CommandLineTests.scratchFolder("tutorial")
            let blocks = Self.blocks(try String(contentsOf: Self.tutorial, encoding: .utf8))
            #expect(blocks.count(where: { $0.info.count == 2 }) >= 5, "the tutorial writes its files")
            var commands = 0
            for block in blocks {
                if block.info.count == 2 {
                    let file = folder.appendingPathComponent(block.info[1])
                    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try (block.lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
                    continue
                }
                guard block.info.first == "console" else { continue }
                // Each command with the lines it prints, up to the next command.
                var runs: [(command: String, output: [String])] = []
                for line in block.lines {
                    if line.hasPrefix("$ ") { runs.append((String(line.dropFirst(2)), [])) } else { runs[runs.count - 1].output.append(line) }
                }
                for (command, output) in runs {
                    let words = command.split(separator: " ").map(String.init)
                    #expect(words.first == "tide")
                    let result = try TideProcess.run(Array(words.dropFirst()), workingDirectory: folder)
                    commands += 1
                    #expect(result.status == 0, "\(command): \(result.stdout)\(result.stderr)")
                    #expect(Self.timeless(result.stdout) == Self.timeless(output.joined(separator: "\n") + "\n"),
                            "\(command) prints what the tutorial shows")
                }
            }
            #expect(commands >= 5)
        }
    }
}
