public import AppStoreFormats
public import Foundation

/// One App Store Server Notification V2 the store owes an app's server, kept durably in the tenant's outbox.
///
/// The store writes a record in the same storage transaction as the change it reports, so a notification is
/// never lost and never sent for a change that did not happen. The record keeps references and a copy of the
/// subscription as it stood, not signed data: the payload is signed when it is handed out (see
/// `StoreEngine.signedNotification(_:)`), so a certificate rotation or a million renewals cost no signatures
/// until someone reads them.
public struct NotificationRecord: Sendable, Hashable, Codable, Identifiable {
    /// The notification's identifier (`notificationUUID`).
    public var id: UUID
    /// Apple's notification type (`notificationType`).
    public var type: NotificationTypeV2
    /// Apple's subtype, when the type has one (`subtype`).
    public var subtype: Subtype?
    /// When the change happened, on the store's clock.
    public var date: Date
    /// The account the change concerns.
    public var accountID: String
    /// The app whose server receives the notification.
    public var bundleID: String
    /// The transaction the notification carries as `signedTransactionInfo`.
    public var transactionID: UInt64
    /// For an auto-renewable subscription: the subscription as it stood just after the change, which the
    /// notification carries as `signedRenewalInfo` and `status`.
    public var subscription: SubscriptionRecord?

    /// Creates a record.
    public init(
        id: UUID = .random(), type: NotificationTypeV2, subtype: Subtype? = nil, date: Date, accountID: String,
        bundleID: String, transactionID: UInt64, subscription: SubscriptionRecord? = nil
    ) {
        self.id = id
        self.type = type
        self.subtype = subtype
        self.date = date
        self.accountID = accountID
        self.bundleID = bundleID
        self.transactionID = transactionID
        self.subscription = subscription
    }

    /// The type and subtype as Apple writes them, e.g. `SUBSCRIBED/INITIAL_BUY` or `DID_RENEW`.
    public var summary: String {
        subtype.map { "\(type.rawValue)/\($0.rawValue)" } ?? type.rawValue
    }
}

/// Which notifications to read from a tenant's outbox. Unset fields match everything.
public struct NotificationQuery: Sendable, Hashable {
    /// Only notifications for this app.
    public var bundleID: String?
    /// Only notifications dated at or after this date.
    public var startDate: Date?
    /// Only notifications dated before this date.
    public var endDate: Date?
    /// At most this many, the oldest first.
    public var limit: Int?

    /// Creates a query.
    public init(bundleID: String? = nil, startDate: Date? = nil, endDate: Date? = nil, limit: Int? = nil) {
        self.bundleID = bundleID
        self.startDate = startDate
        self.endDate = endDate
        self.limit = limit
    }

    /// Whether a record satisfies the query's filters (the limit aside).
    public func matches(_ record: NotificationRecord) -> Bool {
        (bundleID == nil || record.bundleID == bundleID)
            && (startDate.map { record.date >= $0 } ?? true)
            && (endDate.map { record.date < $0 } ?? true)
    }
}
