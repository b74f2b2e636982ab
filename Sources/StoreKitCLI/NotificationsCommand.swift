import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import ArgumentParser
import Foundation

/// `storekit notifications …`: the App Store Server Notifications the store owes app servers, and how sending them went.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "List, inspect and resend the App Store Server Notifications (V2) in the store's outbox.",
        discussion: """
        Every purchase, renewal, expiry, billing problem, plan or auto-renew change, price increase, offer, refund \
        and revocation writes one notification to the store's outbox, dated when it happened on the store's clock. \
        `storekit serve --notification-url` sends them to the app's server and records each attempt; these commands \
        show where each stands and send one again, and `notifications url` shows or changes where a running server \
        sends them.

        Without a subcommand, `storekit notifications` lists them. list, show and redeliver act on the data \
        directory's store, or with --server URL on a running `storekit serve`; url needs --server.

        Example:
          storekit notifications
          storekit notifications list --bundle-id com.example.demo --json
          storekit notifications show 6b3e5c1e-2f4a-4c1d-9a8e-3f0c2b1d4e5f
          storekit notifications redeliver 6b3e5c1e-2f4a-4c1d-9a8e-3f0c2b1d4e5f
          storekit notifications list --server http://127.0.0.1:8080
          storekit notifications url set http://127.0.0.1:9000/apple --server http://127.0.0.1:8080
        """,
        subcommands: [
            NotificationsListCommand.self, NotificationsShowCommand.self, NotificationsRedeliverCommand.self, NotificationURLCommand.self,
        ],
        defaultSubcommand: NotificationsListCommand.self
    )
}

/// `storekit notifications list`: the outbox, oldest first.
struct NotificationsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the notifications in the store's outbox, oldest first, with how sending each went.",
        discussion: """
        One line per notification: its notificationUUID (what `show` and `redeliver` take), date, type/subtype, \
        transaction, app, account, and its delivery: pending, delivered, failed (every retry failed) or notSent \
        (no notification URL when it fell due), with the number of attempts.

        --json prints Apple's field names plus delivery, attempts and nextAttemptDate. With --signed each comes with \
        its signedPayload, the JWS an app server receives, signed now; Apple's SignedDataVerifier verifies it given \
        the root from `storekit ca export`.

        Pass --config to let the store first apply the renewals and expiries due on its clock (not needed with \
        --server).

        Example:
          storekit notifications list
          storekit notifications list --bundle-id com.example.app --json --signed
          storekit notifications list --since 2026-01-01T00:00:00Z
          storekit notifications list --server http://127.0.0.1:8080 --tenant qa-1
        """
    )

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp("The .storekit file, so due renewals are applied before listing.", valueName: "file"))
    var config: String?

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Only this app's notifications.", valueName: "id"))
    var bundleID: String?

    @Option(help: ArgumentHelp("Only notifications dated at or after this ISO 8601 date.", valueName: "date"))
    var since: String?

    @Flag(help: "Print a JSON array.")
    var json = false

    @Flag(help: "Include each notification's signedPayload (implies --json).")
    var signed = false

    func validate() throws {
        if let since, (try? Date(since, strategy: .iso8601)) == nil {
            throw ValidationError("--since \"\(since)\" is not an ISO 8601 date. Write it like 2026-01-31T00:00:00Z.")
        }
    }

    func run() async throws {
        let store = try remote.control(location: location) { try config.map(loadConfiguration) }
        let start = try since.map { try Date($0, strategy: .iso8601) }
        let entries = try await store.notifications(NotificationQuery(bundleID: bundleID, startDate: start), signed: signed)
        if json || signed {
            try printJSON(entries)
        } else if entries.isEmpty {
            print("No notifications in \(try remote.place(location: location)) (store \"\(location.resolvedTenant)\").")
        } else {
            entries.forEach { print($0.line) }
        }
    }
}

/// `storekit notifications show`: one notification, its delivery and its decoded payload.
struct NotificationsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one notification: its delivery attempts and the payload an app server receives, decoded.",
        discussion: """
        Prints the notification's fields and every attempt to send it, then the payload of its signedPayload as \
        JSON, and the payloads of the signedTransactionInfo and signedRenewalInfo inside it (decoded, not \
        verified: `storekit jws verify` verifies). --json prints the entry as `list --json` does, with its \
        signedPayload.

        Example:
          storekit notifications show 6b3e5c1e-2f4a-4c1d-9a8e-3f0c2b1d4e5f
          storekit notifications show 6b3e5c1e-2f4a-4c1d-9a8e-3f0c2b1d4e5f --json
          OPENSTOREKIT_SERVER=http://127.0.0.1:8080 storekit notifications show $UUID
        """
    )

    @Argument(help: ArgumentHelp("The notificationUUID, as `storekit notifications list` prints it.", valueName: "uuid"))
    var notificationID: String

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        _ = try parseNotificationID(notificationID)
    }

    func run() async throws {
        let entry = try await remote.control(location: location) { nil }.notification(try parseNotificationID(notificationID))
        if json {
            try printJSON(entry)
            return
        }
        entry.detailLines.forEach { print($0) }
        guard let token = entry.signedPayload else { return }
        let payload: JSONValue
        do {
            payload = try CompactJWS(token).payloadJSON
        } catch {
            throw ValidationError("The notification's signedPayload is not a compact JWS: \(error). Print it with --json.")
        }
        // The transaction and renewal info it carries are JWS too: decoded in place.
        print("payload:")
        print(payload.expandingSignedFields().prettyPrinted)
    }
}

/// `storekit notifications redeliver`: sends a notification again.
struct NotificationsRedeliverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redeliver",
        abstract: "Send a notification again: pending from now with Apple's full retry schedule, earlier attempts kept.",
        discussion: """
        Whether the notification was delivered, failed after its retries or was never sent, it becomes pending from \
        the store's now; the app's server receives the same notificationUUID again, as when the App Store retries. \
        A running `storekit serve` with a notification URL for the app sends it: at once with --server, within a \
        few seconds when the change is made in the data directory.

        Example:
          storekit notifications redeliver 6b3e5c1e-2f4a-4c1d-9a8e-3f0c2b1d4e5f
          storekit notifications redeliver $UUID --server http://127.0.0.1:8080 --json
        """
    )

    @Argument(help: ArgumentHelp("The notificationUUID, as `storekit notifications list` prints it.", valueName: "uuid"))
    var notificationID: String

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Flag(help: "Print the notification afterwards as one JSON object.")
    var json = false

    func validate() throws {
        _ = try parseNotificationID(notificationID)
    }

    func run() async throws {
        let entry = try await remote.control(location: location) { nil }.redeliver(notification: try parseNotificationID(notificationID))
        if json {
            try printJSON(entry)
            return
        }
        let earlier = entry.attempts.count
        print("\(entry.notificationUUID)  \(entry.summary)  pending again, next attempt \(entry.nextAttemptDate ?? "as soon as a notification URL is set"); \(earlier) earlier attempt\(earlier == 1 ? "" : "s") kept")
    }
}

/// Parses a notification identifier argument.
func parseNotificationID(_ text: String) throws -> UUID {
    guard let id = UUID(uuidString: text) else {
        throw ValidationError("\"\(text)\" is not a notification identifier. Use the notificationUUID `storekit notifications list` prints, such as 6b3e5c1e-2f4a-4c1d-9a8e-3f0c2b1d4e5f.")
    }
    return id
}

extension NotificationLogEntry {
    /// How sending went, for people: the state and the number of attempts.
    var deliveryText: String {
        "\(delivery), \(attempts.count) attempt\(attempts.count == 1 ? "" : "s")"
    }

    /// One line for people: identifier, date, type, transaction, app, account and delivery.
    var line: String {
        "\(notificationUUID)  \(date)  \(summary)  transaction \(transactionId)  \(bundleId)  [\(account)]  \(deliveryText)"
    }

    /// The entry for people, a line per fact, then one per attempt.
    var detailLines: [String] {
        var lines = [
            "notification \(notificationUUID)",
            "  type:         \(summary)",
            "  date:         \(date)",
            "  app:          \(bundleId)",
            "  account:      \(account)",
            "  transaction:  \(transactionId)",
        ]
        if let status { lines.append("  status:       \(status) (Apple's subscription status then)") }
        lines.append("  delivery:     \(deliveryText)\(nextAttemptDate.map { ", next attempt \($0)" } ?? "")")
        for attempt in attempts { lines.append("    \(attempt.date)  \(attempt.result)") }
        return lines
    }
}
