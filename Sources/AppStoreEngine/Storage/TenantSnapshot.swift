public import Foundation

/// Everything one tenant holds: what a tenant export writes and an import restores.
///
/// Restoring a snapshot into a tenant (``StorageChange/restore(_:)``) replaces all of the tenant's state, so a store
/// exported from one data directory, or from one server, continues in another exactly where it was: the same
/// purchases, the same devices' finished marks, the same subscriptions due at the same dates, the same notifications
/// owed, the same clock, and the next transaction identifier after the last one.
public struct TenantSnapshot: Sendable, Hashable, Codable {
    /// That a device finished a transaction.
    public struct FinishedMark: Sendable, Hashable, Codable {
        /// The device.
        public var deviceID: UUID
        /// The transaction it finished.
        public var transactionID: UInt64

        /// Describes a finished mark.
        public init(deviceID: UUID, transactionID: UInt64) {
            self.deviceID = deviceID
            self.transactionID = transactionID
        }
    }

    /// The snapshot format's version; an import refuses a format it does not know.
    public var format: Int
    /// The saved accounts, by identifier.
    public var accounts: [Account]
    /// Every transaction, by identifier.
    public var transactions: [TransactionRecord]
    /// Which device finished which transaction, by device and transaction.
    public var finishedTransactions: [FinishedMark]
    /// The promoted purchases waiting for apps, oldest first.
    public var purchaseIntents: [PurchaseIntentRecord]
    /// The auto-renewable subscriptions, by original transaction identifier.
    public var subscriptions: [SubscriptionRecord]
    /// The notification outbox, by date and then in the order written.
    public var notifications: [NotificationRecord]
    /// The tenant's clock: its offset from wall time and its time rate.
    public var clock: StoreClockState
    /// The identifier the tenant's next transaction gets.
    public var nextTransactionID: UInt64

    /// The format this version writes and reads.
    public static let currentFormat = 1

    /// Describes a tenant's state.
    public init(
        accounts: [Account] = [], transactions: [TransactionRecord] = [], finishedTransactions: [FinishedMark] = [],
        purchaseIntents: [PurchaseIntentRecord] = [], subscriptions: [SubscriptionRecord] = [],
        notifications: [NotificationRecord] = [], clock: StoreClockState = StoreClockState(),
        nextTransactionID: UInt64 = TransactionRecord.firstID
    ) {
        format = Self.currentFormat
        self.accounts = accounts
        self.transactions = transactions
        self.finishedTransactions = finishedTransactions
        self.purchaseIntents = purchaseIntents
        self.subscriptions = subscriptions
        self.notifications = notifications
        self.clock = clock
        self.nextTransactionID = nextTransactionID
    }

    /// The encoder for snapshot files. Dates are Foundation's own number (seconds since 2001-01-01T00:00:00Z), which
    /// survives the trip exactly, so a restored subscription is due at the very instant it was.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .deferredToDate
        return encoder
    }

    /// The decoder for snapshot files; the counterpart of ``makeEncoder()``.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        return decoder
    }
}
