/// How an object was laid out in the file it came from, so the writer can reproduce it.
///
/// Xcode omits some keys in some generations (no `nonRenewingSubscriptions` in 1.0 files, no
/// `introductoryOffer` in 5.0 files when there is none, `_storefront` only once the user touched it…).
/// The model stores the value (with its default when the key was absent); the layout remembers which
/// keys were present, so a key that was absent and still holds its default stays absent when written.
/// Values created in code have no layout and are written in the current Xcode's shape.
///
/// Layout is bookkeeping, not content: two models that hold the same values are equal whatever files
/// they came from, so `==` always returns `true` here.
struct KeyLayout: Sendable, Equatable {
    /// The keys the source object had; `nil` for values created in code.
    var sourceKeys: Set<String>?
    /// The literal text of numbers that the model stores as binary floating point (`_lastSynchronizedDate`).
    var numberText: [String: String] = [:]

    init(sourceKeys: Set<String>? = nil) {
        self.sourceKeys = sourceKeys
    }

    static func == (lhs: KeyLayout, rhs: KeyLayout) -> Bool { true }

    /// Whether the writer emits `key`: always when the value differs from the default; otherwise when
    /// the source had the key, or, for values created in code, when current Xcode writes it (`fresh`).
    func shouldWrite(_ key: String, isDefault: Bool, fresh: Bool) -> Bool {
        if !isDefault { return true }
        if let sourceKeys { return sourceKeys.contains(key) }
        return fresh
    }

    /// Whether the source object had `key` (`false` for values created in code).
    func hadKey(_ key: String) -> Bool {
        sourceKeys?.contains(key) ?? false
    }
}
