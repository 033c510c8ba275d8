import CLlama
import Foundation
import Synchronization

/// DRY samplers already made, by their settings, so that a reply asking for the settings of a
/// recent one gets a copy (`llama_sampler_clone`) instead of a new one: llama.cpp makes a DRY
/// sampler by reading the whole vocabulary for each sequence breaker, and clients send the same
/// breakers with every request (and a request of `n` choices makes one sampler a choice).
/// Each model keeps its own; the least recently used settings are forgotten past ``capacity``.
final class DRYSamplerCache: Sendable {
    /// What makes two DRY samplers the same.
    struct Settings: Hashable {
        var breakers: [String]
        var multiplier: Float
        var base: Float
        var allowedLength: Int32
        var penaltyLastN: Int32
    }

    /// A sampler never used, the pattern of its copies: touched only to be copied, or freed
    /// once it is no longer kept.
    private struct Entry: @unchecked Sendable {
        let settings: Settings
        let sampler: UnsafeMutablePointer<llama_sampler>
    }

    /// How many settings are kept.
    static let capacity = 8

    /// The samplers kept, most recently used last.
    private let kept = Mutex<[Entry]>([])

    /// A DRY sampler of `settings` over `vocab`: a copy of a kept one, or one made and kept.
    func sampler(_ settings: Settings, vocab: OpaquePointer) -> UnsafeMutablePointer<llama_sampler>? {
        // Copied under the lock, so that no other reply frees the pattern meanwhile (a copy takes
        // the processed breakers, a few thousand entries at most).
        if let copy = kept.withLock({ kept -> Entry? in
            guard let index = kept.firstIndex(where: { $0.settings == settings }) else { return nil }
            let entry = kept.remove(at: index)
            kept.append(entry)
            return llama_sampler_clone(entry.sampler).map { Entry(settings: settings, sampler: $0) }
        }) {
            return copy.sampler
        }
        // Made outside the lock: other replies' samplers need not wait for this one's breakers.
        let breakers = settings.breakers.map { strdup($0) }
        defer { breakers.forEach { free($0) } }
        var pointers = breakers.map { UnsafePointer<CChar>($0) }
        guard let made = llama_sampler_init_dry(vocab, settings.multiplier, settings.base, settings.allowedLength, settings.penaltyLastN,
                                                &pointers, pointers.count) else { return nil }
        // Another reply may have made and kept the same meanwhile: then this one is used as it is.
        let entry = Entry(settings: settings, sampler: made)
        let (stored, copy, evicted) = kept.withLock { kept -> (Bool, Entry?, [Entry]) in
            guard !kept.contains(where: { $0.settings == settings }) else { return (false, nil, []) }
            kept.append(entry)
            let excess = max(0, kept.count - Self.capacity)
            defer { kept.removeFirst(excess) }
            return (true, llama_sampler_clone(made).map { Entry(settings: settings, sampler: $0) }, Array(kept.prefix(excess)))
        }
        evicted.forEach { llama_sampler_free($0.sampler) }
        return stored ? copy?.sampler : made
    }

    deinit {
        kept.withLock { kept in kept.forEach { llama_sampler_free($0.sampler) } }
    }
}
