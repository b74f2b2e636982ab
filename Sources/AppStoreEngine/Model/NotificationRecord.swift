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
    /// The original transaction of that transaction: notifications of one original are delivered in order.
    public var originalTransactionID: UInt64
    /// For an auto-renewable subscription: the subscription as it stood just after the change, which the
    /// notification carries as `signedRenewalInfo` and `status`.
    public var subscription: SubscriptionRecord?
    /// For `RENEWAL_EXTENSION`/`SUMMARY`: the mass renewal-date extension request whose outcome the notification
    /// carries as `summary` (it carries no transaction then, and ``transactionID`` is 0).
    public var massExtension: MassExtensionRecord?
    /// For `CONSUMPTION_REQUEST`: why the customer asked for a refund, which the notification's `data` carries as
    /// `consumptionRequestReason`.
    public var consumptionRequestReason: ConsumptionRequestReason?
    /// For `EXTERNAL_PURCHASE_TOKEN`: the token as it stood when the notification was written, which the notification
    /// carries as `externalPurchaseToken` (it carries no transaction then, and ``transactionID`` is 0).
    public var externalPurchaseToken: ExternalPurchaseTokenRecord?
    /// Whether, when and how the notification was sent to the app's server.
    public var delivery: NotificationDelivery

    /// Creates a record, waiting to be sent from its date on; without an `id`, with a new one that sorts by `date`
    /// (a version 7 UUID: the outbox's index on identifiers then grows at its end).
    public init(
        id: UUID? = nil, type: NotificationTypeV2, subtype: Subtype? = nil, date: Date, accountID: String,
        bundleID: String, transactionID: UInt64, originalTransactionID: UInt64? = nil, subscription: SubscriptionRecord? = nil,
        massExtension: MassExtensionRecord? = nil
    ) {
        self.id = id ?? .timeOrdered(at: date)
        self.type = type
        self.subtype = subtype
        self.date = date
        self.accountID = accountID
        self.bundleID = bundleID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID ?? subscription?.id ?? transactionID
        self.subscription = subscription
        self.massExtension = massExtension
        self.delivery = NotificationDelivery(nextAttemptDate: date)
    }

    /// The type and subtype as Apple writes them, e.g. `SUBSCRIBED/INITIAL_BUY` or `DID_RENEW`.
    public var summary: String {
        subtype.map { "\(type.rawValue)/\($0.rawValue)" } ?? type.rawValue
    }
}

/// Where sending a notification to the app's server stands.
public struct NotificationDelivery: Sendable, Hashable, Codable {
    /// The outcome so far.
    public enum State: String, Sendable, Hashable, Codable {
        /// Waiting for its first attempt, or for a retry at ``NotificationDelivery/nextAttemptDate``.
        case pending
        /// The app's server answered 200–206.
        case delivered
        /// Every retry failed; the App Store gives up.
        case failed
        /// No notification URL was set for the app when it fell due; it is kept in the history, never sent.
        case notSent
    }

    /// One try to send the notification (Apple's `sendAttempts`).
    public struct Attempt: Sendable, Hashable, Codable {
        /// When, on the store's clock.
        public var date: Date
        /// Apple's `sendAttemptResult`: `SUCCESS`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, `TIMED_OUT`, `NO_RESPONSE`, …
        public var result: String
        /// The HTTP status the app's server answered, when it answered.
        public var httpStatusCode: Int?
        /// The start of what the app's server answered (at most 256 characters), when it said anything.
        public var responseExcerpt: String?

        /// Creates an attempt.
        public init(date: Date, result: String, httpStatusCode: Int? = nil, responseExcerpt: String? = nil) {
            self.date = date
            self.result = result
            self.httpStatusCode = httpStatusCode
            self.responseExcerpt = responseExcerpt
        }
    }

    /// The outcome so far.
    public var state: State
    /// The attempts made, oldest first.
    public var attempts: [Attempt]
    /// When the next attempt is due, while the notification is pending.
    public var nextAttemptDate: Date?
    /// How many of ``attempts`` came before the latest redelivery, which starts Apple's retry schedule over; `nil`
    /// when the notification was never redelivered.
    public var attemptsBeforeRedelivery: Int?
    /// The sender holding the notification while it makes an attempt, so that servers sharing one store never
    /// attempt it twice; `nil` between attempts. See ``Claim``.
    public var claim: Claim?

    /// A sender's hold on a notification while it sends it.
    ///
    /// A sender claims a batch of due notifications in one storage transaction, sends them, and saves each outcome,
    /// which ends the claim. When a sender dies with claims, they lapse at ``expires`` and another sender takes the
    /// notifications over: each is then sent at least once, as the App Store promises, and by one sender at a time.
    public struct Claim: Sendable, Hashable, Codable {
        /// The sender that holds the notification.
        public var sender: UUID
        /// When the hold lapses, on the senders' wall clock (not the store's clock, which a test may stop or speed
        /// up: a hold measures how long a real attempt may take).
        public var expires: Date

        /// Creates a claim.
        public init(sender: UUID, expires: Date) {
            self.sender = sender
            self.expires = expires
        }

        /// Whether the claim keeps other senders than `sender` away at `date`.
        public func excludes(_ sender: UUID, at date: Date) -> Bool {
            self.sender != sender && expires > date
        }
    }

    /// Creates a delivery state.
    public init(state: State = .pending, attempts: [Attempt] = [], nextAttemptDate: Date?) {
        self.state = state
        self.attempts = attempts
        self.nextAttemptDate = nextAttemptDate
    }

    /// How long after a failed attempt the App Store tries again, as Apple's production environment does: after 1,
    /// 12, 24, 48 and 72 hours; after the fifth retry fails, it gives up.
    public static let retryDelays: [TimeInterval] = [1, 12, 24, 48, 72].map { $0 * 3_600 }

    /// Records an attempt: success ends delivery; a failure schedules the next retry, or gives up after the last.
    public mutating func record(_ attempt: Attempt) {
        attempts.append(attempt)
        let result = attempt.result, date = attempt.date
        let attemptsThisRound = attempts.count - (attemptsBeforeRedelivery ?? 0)
        if result == "SUCCESS" {
            state = .delivered
            nextAttemptDate = nil
        } else if attemptsThisRound > Self.retryDelays.count {
            state = .failed
            nextAttemptDate = nil
        } else {
            nextAttemptDate = date.addingTimeInterval(Self.retryDelays[attemptsThisRound - 1])
        }
    }

    /// Sends the notification again from `date` on, whatever became of it, with a full retry schedule; the attempts
    /// made so far stay in ``attempts``.
    public mutating func redeliver(from date: Date) {
        state = .pending
        claim = nil
        nextAttemptDate = date
        attemptsBeforeRedelivery = attempts.count
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
