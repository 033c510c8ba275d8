/// The part of a conversation longer than its context that a sequence holds under
/// `--context-overflow shift` (``TideCore/ContextOverflowPolicy/shift``): the prompt's first
/// ``kept`` tokens (the system prompt's), then its tokens from `kept + dropped` on.
///
/// The tokens dropped are a whole number of ``step``s (half the room after the kept tokens, as
/// llama.cpp's context shift drops half), so the window is a function of the prompt alone: the
/// same conversation is held alike however it got there (a reply replayed from a cache, a
/// session resumed), and as the conversation grows, a window stays the start of the next
/// turn's until the next step is dropped.
struct ContextWindow: Hashable, Sendable {
    /// The tokens at the start always held: the system prompt's.
    let kept: Int
    /// The tokens after them left out.
    let dropped: Int
    /// How many tokens a shift drops.
    let step: Int

    /// The window that holds a prompt of `length` tokens, whose first `kept` stay, in `room`
    /// tokens: nothing dropped when it fits. `nil` when not even the kept tokens and the last
    /// one fit.
    init?(length: Int, kept: Int, room: Int) {
        guard kept + 1 < room else { return nil }
        self.kept = kept
        step = max(1, (room - kept) / 2)
        let excess = length - room
        dropped = excess > 0 ? (excess + step - 1) / step * step : 0
    }

    private init(kept: Int, dropped: Int, step: Int) {
        self.kept = kept
        self.dropped = dropped
        self.step = step
    }

    /// The window of the same kept tokens that drops nothing: what a cache holding the prompt's
    /// own start holds.
    var unshifted: ContextWindow { ContextWindow(kept: kept, dropped: 0, step: step) }

    /// Whether it drops anything.
    var shifts: Bool { dropped > 0 }

    /// The tokens of `prompt` it holds.
    func tokens(of prompt: [Int32]) -> [Int32] {
        guard shifts else { return prompt }
        return Array(prompt[..<kept] + prompt[(kept + dropped)...])
    }

    /// The window after `count` more tokens are dropped (a shift within a reply).
    func dropping(_ count: Int) -> ContextWindow {
        ContextWindow(kept: kept, dropped: dropped + count, step: step)
    }

    /// How many more tokens this window drops than `held`, the window a cache holds, when this
    /// one continues it (the same kept tokens, no fewer dropped); `nil` when it does not.
    func shift(from held: ContextWindow) -> Int? {
        held.kept == kept && dropped >= held.dropped ? dropped - held.dropped : nil
    }
}

/// Tokens a sequence's cache drops after a window's kept tokens, those after them moved into
/// their place (``SequenceCache/shift(_:in:)``): between turns, to start the next prompt's
/// window; within a reply, to make room for its next tokens.
struct CacheShift: Hashable, Sendable {
    /// The window the cache holds the start of.
    let held: ContextWindow
    /// How many tokens after its kept ones go.
    let count: Int

    /// Drops `count` tokens of `held`.
    init(dropping count: Int, of held: ContextWindow) {
        self.held = held
        self.count = count
    }

    /// The shift that makes a cache holding the start of `held` (the prompt itself, when `nil`)
    /// hold the start of `window`; `nil` when there is nothing to drop, or `window` does not
    /// continue `held`.
    init?(to window: ContextWindow, from held: ContextWindow?) {
        let held = held ?? window.unshifted
        guard let count = window.shift(from: held), count > 0 else { return nil }
        self.init(dropping: count, of: held)
    }

    /// The window the cache holds after it.
    var result: ContextWindow { held.dropping(count) }

    /// What a cache holding `cached` holds after it.
    func tokens(after cached: [Int32]) -> [Int32] {
        let start = min(held.kept, cached.count)
        return Array(cached[..<start] + cached[min(held.kept + count, cached.count)...])
    }
}
