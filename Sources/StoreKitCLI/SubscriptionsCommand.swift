import AppStoreEngine
import AppStoreFormats
import AppStoreHosting
import ArgumentParser
import Foundation

/// `storekit subscriptions`: an account's auto-renewable subscriptions and what each does next.
struct SubscriptionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "List an account's auto-renewable subscriptions: status, current period, what happens at its end.",
        discussion: """
        Renewals and expiries due by now are applied first, so the list is current even if no process ran the
        store for a while. That needs the products the subscriptions renew into: give --config, or the list shows
        the store as the last process with its configuration left it.

        Example:
          storekit subscriptions
          storekit subscriptions --account alice --json
          storekit subscriptions --config Examples/Demo.storekit
          storekit subscriptions --server http://127.0.0.1:8080 --tenant checkout-42
        """
    )

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp("The account whose subscriptions to list.", valueName: "name"))
    var account = StoreDefaults.accountID

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Only this app's subscriptions.", valueName: "id"))
    var bundleID: String?

    @Flag(help: "Print a JSON array.")
    var json = false

    @Option(help: ArgumentHelp("The .storekit file that lists the products, so due subscriptions renew first.", valueName: "file"))
    var config: String?

    func run() async throws {
        let store = try remote.control(location: location) { try config.map(loadConfiguration) }
        let outputs = try await store.subscriptions(accountID: account, bundleID: bundleID).map(SubscriptionOutput.init)
        if json {
            try printJSON(outputs)
        } else if outputs.isEmpty {
            let place = try remote.serverURL().map { "the server at \($0.absoluteString)" } ?? location.directory.url.path
            print("No subscriptions for account \"\(account)\" in \(place) (store \"\(location.resolvedTenant)\").")
        } else {
            outputs.forEach { print($0.line) }
        }
    }
}

/// A subscription as `storekit subscriptions` prints it, with Apple's renewal-info names where Apple has one.
struct SubscriptionOutput: Encodable {
    var originalTransactionId: String
    var productId: String
    var autoRenewProductId: String
    var bundleId: String
    var groupId: String
    var status: String
    var autoRenewStatus: Int
    var expiresDate: String
    var recentSubscriptionStartDate: String
    /// When the current period started.
    var periodStartDate: String
    var renewals: Int
    var expirationIntent: Int?
    /// Apple's `isInBillingRetryPeriod`: renewing failed and the App Store keeps trying.
    var isInBillingRetryPeriod: Bool
    /// While billing retry runs with a grace period: when the grace period ends.
    var gracePeriodExpiresDate: String?
    /// A price increase: `pending` consent, `agreed` or `declined`.
    var priceIncrease: String?

    init(_ subscription: SubscriptionRecord) {
        originalTransactionId = String(subscription.id)
        productId = subscription.productID
        autoRenewProductId = subscription.autoRenewProductID
        bundleId = subscription.bundleID
        groupId = subscription.groupID
        status = subscription.status.rawValue
        autoRenewStatus = subscription.autoRenewEnabled ? 1 : 0
        expiresDate = subscription.expiresDate.formatted(.iso8601)
        recentSubscriptionStartDate = subscription.recentStartDate.formatted(.iso8601)
        periodStartDate = subscription.periodStartDate.formatted(.iso8601)
        renewals = subscription.renewalCount
        expirationIntent = subscription.expirationIntent.map { Int($0.rawValue) }
        isInBillingRetryPeriod = subscription.isInBillingRetry
        gracePeriodExpiresDate = subscription.gracePeriodExpiresDate?.formatted(.iso8601)
        priceIncrease = subscription.priceIncrease?.rawValue
    }

    /// The renewal state for people, a line per fact: what `storekit tx show` prints under the transaction.
    var detailLines: [String] {
        var lines = [
            "product:      \(productId)\(autoRenewProductId == productId ? "" : ", renews into \(autoRenewProductId)")",
            "status:       \(status)",
            "auto-renew:   \(autoRenewStatus == 1 ? "on" : "off")",
            "period:       \(periodStartDate) to \(expiresDate) (\(renewals) renewals, subscribed since \(recentSubscriptionStartDate))",
        ]
        if let expirationIntent { lines.append("ended:        expirationIntent \(expirationIntent)") }
        if isInBillingRetryPeriod { lines.append("billing:      in retry\(gracePeriodExpiresDate.map { ", grace period until \($0)" } ?? "")") }
        if let priceIncrease { lines.append("price:        increase \(priceIncrease)") }
        lines.append("next:         \(next)")
        return lines
    }

    /// What happens at the end of the period, for people.
    var next: String {
        switch (status, autoRenewStatus) {
        case ("active", 1): "renews into \(autoRenewProductId) at \(expiresDate)"
        case ("active", _): "expires at \(expiresDate)"
        default: "ended at \(expiresDate)"
        }
    }

    /// One line for people.
    var line: String {
        "\(originalTransactionId)  \(productId)  \(status)  \(next)  (\(renewals) renewals)"
    }
}
