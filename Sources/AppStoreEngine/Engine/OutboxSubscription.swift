public import Foundation

/// A sender's signals of work in a store's outbox, from ``StoreEngine/outboxUpdates()``.
public struct OutboxSubscription: Sendable {
    /// Names the subscription to ``StoreEngine/quietOutboxSignals(for:)``.
    public let id: UUID
    /// An element each time there may be work; signals not yet read collapse into one.
    public let signals: AsyncStream<Void>
}

/// One subscription, as the engine that signals it keeps it: a class, so announcing updates its flags in place.
final class OutboxSubscriber {
    let continuation: AsyncStream<Void>.Continuation
    /// Set by ``StoreEngine/quietOutboxSignals(for:)`` until the destinations may have changed.
    var quiet = false
    /// Whether the subscription was signalled since it was made quiet: it is not signalled again for recorded work.
    var signalledWhileQuiet = false

    init(continuation: AsyncStream<Void>.Continuation) {
        self.continuation = continuation
    }
}
