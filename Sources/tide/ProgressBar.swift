import Foundation
import Synchronization

/// A one-line progress bar on standard error, drawn only when it is a terminal.
final class ProgressBar: Sendable {
    private let label: String
    private let enabled: Bool
    private let lastDrawn = Mutex<Int>(-1)

    init(label: String, enabled: Bool = Terminal.stderrIsTTY) {
        self.label = label
        self.enabled = enabled
    }

    /// Draws the bar at `fraction` (0…1); `detail` follows the percentage.
    func update(_ fraction: Double, detail: String = "") {
        guard enabled else { return }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        let changed = lastDrawn.withLock { last in
            defer { last = percent }
            return last != percent || !detail.isEmpty
        }
        guard changed else { return }
        let width = 30
        let filled = width * percent / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(label) \(bar) \(percent)% \(detail)".utf8))
    }

    /// Removes the bar from the screen.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
