public import AppStoreEngine
public import Foundation

/// The answer to a long poll of ``DeviceProtocol/Route/changes``: what changed in the store after the sequence
/// number the client gave, and the number to give next time.
///
/// Sequence numbers count the changes of one server run, named by ``epoch``. After a restart the epoch differs:
/// the client cannot know what it missed, so the server answers a single ``Change/other`` and the client starts
/// counting from the new epoch.
public struct ChangeBatch: Codable, Sendable, Hashable {
    /// One change, as far as the server can tell.
    public enum Change: Codable, Sendable, Hashable {
        /// These transactions were created or changed their state.
        case transactions([TransactionRecord])
        /// These subscriptions changed their renewal state.
        case subscriptions([SubscriptionRecord])
        /// Anything else: a refund, a deletion, a storefront, a purchase intent; or changes the server no longer
        /// remembers. The device looks at everything again.
        case other
    }

    /// The server run the sequence numbers belong to.
    public var epoch: UUID
    /// The sequence number of the last change the batch includes: the `after` of the next poll.
    public var sequence: UInt64
    /// The changes after the client's sequence number, oldest first; empty when the wait ended with none.
    public var changes: [Change]

    /// Describes a batch.
    public init(epoch: UUID, sequence: UInt64, changes: [Change]) {
        self.epoch = epoch
        self.sequence = sequence
        self.changes = changes
    }
}
