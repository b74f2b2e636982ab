public import Foundation

/// The notification outbox as the senders that deliver it see it.
///
/// Several senders may share one store: one per server when several servers use one database, and a server
/// restarted after a crash. They never attempt one notification at the same time, and they keep Apple's order: a
/// notification is attempted only once every earlier one of its original transaction was delivered, given up or
/// never sent. A sender first *claims* a batch of due notifications in one storage transaction (serialized with
/// every other transaction on the tenant, in every process), makes its attempts outside any transaction, and saves
/// each outcome, which ends its claim. Claims lapse on the senders' wall clock, so the notifications of a sender
/// that died are taken over by another.
extension StoreEngine {
    /// What a sender may do with a due notification.
    private enum OutboxTurn {
        /// Attempt it now.
        case send
        /// Wait until an earlier notification of its original transaction has had its retry at this date.
        case deferred(until: Date)
        /// Leave it: another sender holds it or an earlier one of its original transaction.
        case wait
    }

    /// The most notifications a claim looks at, beyond the ones it claims: due notifications other senders hold.
    private static let claimLookahead = 256

    /// Claims up to `limit` of the notifications due on the store's clock for `sender`, in the order they must be
    /// sent, until `expiry`.
    ///
    /// Notifications another sender holds are skipped, and so are the later ones of their original transactions.
    /// A due notification whose original transaction has an earlier one waiting for a retry is moved behind that
    /// retry. The sender makes one attempt at each claimed notification and saves it with
    /// ``saveDelivery(of:by:)``; when one fails, the later claimed ones of its original transaction should be saved
    /// with the same next attempt date, unattempted.
    ///
    /// - Parameters:
    ///   - limit: The most notifications to claim.
    ///   - sender: The claiming sender's identifier.
    ///   - expiry: When the claims lapse if the sender has not saved the outcomes by then, on its wall clock.
    ///   - senderNow: The current date on the sender's wall clock, against which other senders' claims are judged.
    /// - Returns: The claimed notifications, to be attempted in this order.
    public func claimDueNotifications(
        limit: Int, for sender: UUID, until expiry: Date, at senderNow: Date
    ) async throws(StoreError) -> [NotificationRecord] {
        try await perform { operation in
            let storage = operation.storage
            var claimed: [NotificationRecord] = []
            var earlier = EarlierNotifications(storage: storage)
            for var notification in try storage.notificationsDue(by: operation.now, limit: limit + Self.claimLookahead) {
                guard claimed.count < limit else { break }
                switch try Self.turn(of: notification, for: sender, at: senderNow, now: operation.now, claimed: claimed, earlier: &earlier) {
                case .send:
                    notification.delivery.claim = .init(sender: sender, expires: expiry)
                    claimed.append(notification)
                case .deferred(let until):
                    notification.delivery.nextAttemptDate = until
                    earlier.update(notification)
                case .wait:
                    continue
                }
                try storage.write(.updateNotification(notification))
            }
            return claimed
        }
    }

    /// How many notifications wait in the outbox to be sent or retried, counting at most `limit`: what a server
    /// reports as its outbox depth.
    public func pendingNotificationCount(limit: Int) async throws(StoreError) -> Int {
        try await read { reader in try reader.notificationsDue(by: .distantFuture, limit: limit).count }
    }

    /// When `sender` can next make an attempt: the earliest due date among the pending notifications it could claim
    /// then, or `nil` when it has nothing to send.
    public func nextNotificationAttemptDate(for sender: UUID, at senderNow: Date) async throws(StoreError) -> Date? {
        try await read { reader in
            var earlier = EarlierNotifications(storage: reader)
            var next: Date?
            for notification in try reader.notificationsDue(by: .distantFuture, limit: Self.claimLookahead) {
                guard let due = notification.delivery.nextAttemptDate else { continue }
                if let next, next <= due { break }
                switch try Self.turn(of: notification, for: sender, at: senderNow, now: due, claimed: [], earlier: &earlier) {
                case .send: next = due
                case .deferred(let until): next = min(next ?? until, until)
                case .wait: continue
                }
            }
            return next
        }
    }

    /// Saves the outcome of an attempt at a notification `sender` claimed, and ends the claim.
    ///
    /// - Returns: `false` when nothing was saved: the notification is no longer in the outbox (its transaction was
    ///   deleted), or the claim had lapsed and it is no longer the sender's (another sender took it over, or it was
    ///   redelivered). The outcome is then dropped; the app's server may receive the notification again, which the
    ///   App Store's at-least-once delivery allows.
    @discardableResult
    public func saveDelivery(of notification: NotificationRecord, by sender: UUID) async throws(StoreError) -> Bool {
        try await perform { operation in
            guard let stored = try operation.storage.notification(id: notification.id), stored.delivery.claim?.sender == sender else {
                return false
            }
            var outcome = notification
            outcome.delivery.claim = nil
            try operation.storage.write(.updateNotification(outcome))
            return true
        }
    }

    /// The notification with the identifier (its `notificationUUID`).
    ///
    /// - Throws: ``StoreError/unknownNotification`` when the outbox holds none with it.
    public func notification(id: UUID) async throws(StoreError) -> NotificationRecord {
        let found = try await read { try $0.notification(id: id) }
        guard let found else { throw Self.noNotification(id) }
        return found
    }

    /// Sends a notification again, as soon as a notification URL is set for its app: whether it was delivered, gave
    /// up after its retries or was never sent, it is pending from now with Apple's full retry schedule, and its
    /// earlier attempts stay on record. The app's server receives the same `notificationUUID` again, as it does when
    /// the App Store retries.
    ///
    /// - Returns: The notification, pending.
    /// - Throws: ``StoreError/unknownNotification`` when the outbox holds none with the identifier.
    @discardableResult
    public func redeliverNotification(id: UUID) async throws(StoreError) -> NotificationRecord {
        let notification = try await perform { operation in
            guard var notification = try operation.storage.notification(id: id) else { throw Self.noNotification(id) }
            notification.delivery.redeliver(from: operation.now)
            try operation.storage.write(.updateNotification(notification))
            return notification
        }
        announceOutboxWork()
        return notification
    }

    private static func noNotification(_ id: UUID) -> StoreError {
        .unknownNotification("This store's outbox holds no notification \(id.uuidString.lowercased()). List them with `storekit notifications list` or GET /control/notifications.")
    }

    /// Whether `sender` may attempt `notification` at `now`, having claimed `claimed` in the same pass.
    private static func turn(
        of notification: NotificationRecord, for sender: UUID, at senderNow: Date, now: Date, claimed: [NotificationRecord],
        earlier: inout EarlierNotifications
    ) throws -> OutboxTurn {
        if notification.delivery.claim?.excludes(sender, at: senderNow) == true { return .wait }
        var retryDate: Date?
        for before in try earlier.pending(before: notification) where !claimed.contains(where: { $0.id == before.id }) {
            if before.delivery.claim?.excludes(sender, at: senderNow) == true { return .wait }
            guard let due = before.delivery.nextAttemptDate, due > now else {
                // Due too, but not claimed in this pass: it goes first, in a later pass.
                return .wait
            }
            retryDate = max(retryDate ?? due, due)
        }
        return retryDate.map { .deferred(until: $0) } ?? .send
    }
}

/// The pending notifications of original transactions, read once per original in a claim.
private struct EarlierNotifications {
    let storage: any StorageReader
    private var pendingByOriginal: [UInt64: [NotificationRecord]] = [:]

    init(storage: any StorageReader) {
        self.storage = storage
    }

    /// The pending notifications of `notification`'s original transaction written before it.
    mutating func pending(before notification: NotificationRecord) throws -> ArraySlice<NotificationRecord> {
        let original = notification.originalTransactionID
        let pending = try pendingByOriginal[original] ?? storage.pendingNotifications(originalTransactionID: original)
        pendingByOriginal[original] = pending
        guard let index = pending.firstIndex(where: { $0.id == notification.id }) else { return [] }
        return pending[..<index]
    }

    /// Takes a change to a pending notification written since it was read.
    mutating func update(_ notification: NotificationRecord) {
        guard let index = pendingByOriginal[notification.originalTransactionID]?.firstIndex(where: { $0.id == notification.id }) else { return }
        pendingByOriginal[notification.originalTransactionID]?[index] = notification
    }
}
