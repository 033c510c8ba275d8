import Synchronization

/// What was cut of results as they arrived (``MessageScanner``), by the id of the request each
/// answers, kept until the caller of that request takes it.
final class ResultCuts: Sendable {
    private let cuts = Mutex<[String: [MessageScanner.ContentCut]]>([:])

    /// Records `cuts` of the answer to the request `id`.
    func record(_ cuts: [MessageScanner.ContentCut], for id: String) {
        self.cuts.withLock { $0[id] = cuts }
    }

    /// What was cut of the answer to the request `id` (none when nothing was), forgotten here.
    func take(_ id: String) -> [MessageScanner.ContentCut] {
        cuts.withLock { $0.removeValue(forKey: id) } ?? []
    }
}
