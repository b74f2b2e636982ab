import AppStoreEngine
import AppStoreFormats
import ArgumentParser
import Foundation

/// `storekit notifications`: the App Store Server Notifications the store owes app servers.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "List the App Store Server Notifications (V2) the store recorded, oldest first.",
        discussion: """
        Every purchase, renewal, expiry, billing problem, plan or auto-renew change, price increase, offer, refund \
        and revocation writes one notification to the store's outbox, dated when it happened on the store's clock. \
        With --signed each comes with its `signedPayload`, the JWS an app server receives, signed now; Apple's \
        SignedDataVerifier verifies it given the root from `storekit ca export`.

        Pass --config to let the store first apply the renewals and expiries due on its clock.

        Example:
          storekit notifications
          storekit notifications --bundle-id com.example.app --since 2026-01-01T00:00:00Z --json --signed
        """
    )

    @OptionGroup var location: StoreLocationOptions

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
        let store = try location.openStore(configuration: try config.map(loadConfiguration))
        let start = try since.map { try Date($0, strategy: .iso8601) }
        let notifications = try await store.notifications(NotificationQuery(bundleID: bundleID, startDate: start))
        guard json || signed else {
            for notification in notifications {
                print("\(notification.date.formatted(.iso8601))  \(notification.summary)  transaction \(notification.transactionID)  \(notification.bundleID)  [\(notification.accountID)]")
            }
            return
        }
        var output: [NotificationOutput] = []
        for notification in notifications {
            var entry = NotificationOutput(notification)
            if signed { entry.signedPayload = try await store.signedNotification(notification) }
            output.append(entry)
        }
        try printJSON(output)
    }
}

/// A notification as `storekit notifications --json` prints it: Apple's field names where Apple has one.
struct NotificationOutput: Encodable {
    var notificationUUID: String
    var notificationType: String
    var subtype: String?
    var date: String
    var bundleId: String
    var account: String
    var transactionId: String
    /// The subscription's status then (Apple's 1 active … 5 revoked), for subscriptions.
    var status: Int?
    /// The JWS an app server receives, when asked for.
    var signedPayload: String?

    init(_ notification: NotificationRecord) {
        notificationUUID = notification.id.uuidString.lowercased()
        notificationType = notification.type.rawValue
        subtype = notification.subtype?.rawValue
        date = notification.date.formatted(.iso8601)
        bundleId = notification.bundleID
        account = notification.accountID
        transactionId = String(notification.transactionID)
        status = notification.subscription.map { Int($0.appleStatus.rawValue) }
    }
}
