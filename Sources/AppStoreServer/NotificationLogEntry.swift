public import AppStoreEngine
import AppStoreFormats
import Foundation

/// A notification of the store's outbox as `storekit notifications --json` and the control API show it: Apple's field
/// names where Apple has one, dates in ISO 8601, and how sending it to the app's server went.
public struct NotificationLogEntry: Codable, Sendable, Hashable {
    /// One try to send the notification: when, on the store's clock, and Apple's `sendAttemptResult`.
    public struct Attempt: Codable, Sendable, Hashable {
        /// When the attempt was made, in ISO 8601.
        public var date: String
        /// `SUCCESS`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, `TIMED_OUT`, `NO_RESPONSE`, …
        public var result: String
        /// The HTTP status the app's server answered, when it answered.
        public var httpStatusCode: Int?
        /// The start of the app's server's answer, when it said anything.
        public var responseExcerpt: String?
    }

    /// The notification's identifier.
    public var notificationUUID: String
    /// Apple's `notificationType`, e.g. `DID_RENEW`.
    public var notificationType: String
    /// Apple's `subtype`, when the type has one.
    public var subtype: String?
    /// When the change happened, on the store's clock.
    public var date: String
    /// The app whose server receives it.
    public var bundleId: String
    /// The account the change concerns.
    public var account: String
    /// The transaction it carries.
    public var transactionId: String
    /// The subscription's status then (Apple's 1 active … 5 revoked), for subscriptions.
    public var status: Int?
    /// `pending`, `delivered`, `failed` (every retry failed) or `notSent` (no notification URL when it fell due).
    public var delivery: String
    /// The attempts to send it, oldest first.
    public var attempts: [Attempt]
    /// When the next attempt is due, while it is pending.
    public var nextAttemptDate: String?
    /// The JWS an app server receives, when asked for.
    public var signedPayload: String?

    /// Describes a notification, without its signed payload.
    public init(_ notification: NotificationRecord) {
        notificationUUID = notification.id.uuidString.lowercased()
        notificationType = notification.type.rawValue
        subtype = notification.subtype?.rawValue
        date = notification.date.formatted(.iso8601)
        bundleId = notification.bundleID
        account = notification.accountID
        transactionId = String(notification.transactionID)
        status = notification.subscription.map { Int($0.appleStatus.rawValue) }
        delivery = notification.delivery.state.rawValue
        attempts = notification.delivery.attempts.map { attempt in
            Attempt(date: attempt.date.formatted(.iso8601), result: attempt.result, httpStatusCode: attempt.httpStatusCode, responseExcerpt: attempt.responseExcerpt)
        }
        nextAttemptDate = notification.delivery.nextAttemptDate?.formatted(.iso8601)
    }

    /// Describes a notification with its payload, signed now by `engine`.
    public static func signed(_ notification: NotificationRecord, by engine: StoreEngine) async throws(StoreError) -> NotificationLogEntry {
        var entry = NotificationLogEntry(notification)
        entry.signedPayload = try await engine.signedNotification(notification)
        return entry
    }

    /// The type and subtype as Apple writes them, e.g. `SUBSCRIBED/INITIAL_BUY`.
    public var summary: String {
        subtype.map { "\(notificationType)/\($0)" } ?? notificationType
    }
}
