import Synchronization
import TideCore

/// The responses a server without a conversation log keeps, in its memory: the newest
/// ``capacity``, the oldest forgotten first. They do not outlive the server.
final class RecentResponses: ResponseStore {
    /// The most responses kept.
    let capacity: Int
    private let kept = Mutex<[StoredResponse]>([])

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    func save(_ response: StoredResponse) {
        kept.withLock { kept in
            kept.removeAll { $0.id == response.id }
            kept.append(response)
            if kept.count > capacity { kept.removeFirst(kept.count - capacity) }
        }
    }

    func load(id: String) -> StoredResponse? {
        kept.withLock { kept in kept.last { $0.id == id } }
    }

    func delete(id: String) -> Bool {
        kept.withLock { kept in
            let before = kept.count
            kept.removeAll { $0.id == id }
            return kept.count < before
        }
    }
}
