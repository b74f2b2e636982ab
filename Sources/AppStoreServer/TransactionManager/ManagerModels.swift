import AppStoreEngine
import AppStoreFormats
import Foundation

// What the templates render. Mustache reads these by reflection, so every property is a name a template uses.

struct PageModel {
    var tenant: String
    var basePath: String
    var version: String
    var tenants: [TenantOption]
    var hasTenants: Bool
    /// Whether the page offers to reset the store: on a server with tenants.
    var canReset: Bool
    /// Every control API operation's method and path, as JSON the page's script reads (see ``ManagerPages/operationsJSON``).
    var operations: String
    var clock: ClockModel
    var settings: SettingsModel
    var buy: BuyModel
    var transactions: TransactionsModel
    var notifications: NotificationsModel
    var catalog: CatalogModel
}

struct TenantOption {
    var name: String
    var path: String
    var selected: Bool
}

/// A choice in a `<select>`.
struct Option {
    var value: String
    var label: String
    var selected: Bool
}

struct ClockModel {
    var now: String
    var nowReadable: String
    /// The clock's now as a `datetime-local` value, the earliest date to advance to.
    var localNow: String
    var rates: [Option]
    var presets: [Preset]
}

struct Preset {
    var by: String
    var label: String
}

struct SettingsModel {
    var switches: [Switch]
    var storefronts: [Option]
    var locale: String
    var failureErrorCode: Int
    var renewalLimit: String
}

struct Switch {
    var name: String
    var label: String
    var checked: Bool
}

struct BuyModel {
    var products: [Option]
    var accounts: [String]
    var defaultAccount: String
    var defaultBundle: String
    var winBackOffers: [Option]
}

struct TransactionsModel {
    var rows: [TransactionRow]
    var isEmpty: Bool
    var total: Int
    var shown: Int
    /// How many matching transactions are not shown, beyond the newest ``ManagerPages/rowLimit``.
    var hidden: Int?
    var accounts: [Option]
    var apps: [Option]
    var products: [Option]
    var states: [Option]
    var isFiltered: Bool
}

/// One transaction in the list, with the actions its state allows.
struct TransactionRow {
    var id: String
    var productId: String
    var productName: String
    var account: String
    var bundleId: String
    var type: String
    var state: String
    /// The CSS class of the state's badge.
    var tone: String
    var purchaseDate: String
    var purchaseDateText: String
    var expiresDate: String?
    var expiresDateText: String
    var origin: String
    /// ` · ×3` for more than one unit, else nothing.
    var quantityLabel: String
    var isPendingApproval: Bool
    var canRefund: Bool
    var canResolve: Bool
    /// Whether the customer may ask for a refund: completed, not refunded, no request waiting.
    var canRequestRefund: Bool
    /// Whether a refund request waits for a decision.
    var refundPending: Bool
    /// Whether a refund can be reversed: refunded, not revoked by Family Sharing.
    var canReverseRefund: Bool
    /// The latest refund request, e.g. `refund request pending (UNINTENDED_PURCHASE)`.
    var refundRequest: String?
    /// For the latest transaction of an auto-renewable subscription: where the subscription stands.
    var subscriptionStatus: String?

    init(record: TransactionRecord, summary: TransactionSummary, name: String?, subscription: SubscriptionRecord?) {
        id = summary.transactionId
        productId = record.productID
        productName = name ?? record.productID
        account = record.accountID
        bundleId = record.bundleID
        type = summary.type
        let isRefunded = record.revocationDate != nil
        state = Self.shownState(of: summary)
        tone = switch record.state {
        case _ where isRefunded: "bad"
        case .purchased: "good"
        case .pendingApproval, .interrupted: "wait"
        case .declined, .failed: "bad"
        }
        purchaseDate = summary.purchaseDate
        purchaseDateText = ManagerPages.readable(summary.purchaseDate)
        expiresDate = summary.expiresDate
        expiresDateText = summary.expiresDate.map(ManagerPages.readable) ?? ""
        origin = summary.origin
        quantityLabel = summary.quantity > 1 ? " · ×\(summary.quantity)" : ""
        isPendingApproval = record.state == .pendingApproval
        canRefund = record.state.isCompleted && !isRefunded
        refundPending = record.refundRequest?.status == .pending
        canRequestRefund = canRefund && !refundPending
        canReverseRefund = isRefunded && record.revocationType != .familyRevoke
        refundRequest = record.refundRequest.map { "refund request \($0.status.rawValue) (\($0.reason.rawValue))" }
        let isLatest = subscription?.latestTransactionID == record.id
        canResolve = record.state == .interrupted || (isLatest && subscription?.isInBillingRetry == true)
        subscriptionStatus = isLatest ? subscription.map(TransactionRow.describe) : nil
    }

    /// The state a row shows and the state filter picks: `refunded` once revoked, else the transaction's state.
    static func shownState(of summary: TransactionSummary) -> String {
        summary.revocationDate != nil ? "refunded" : summary.state
    }

    static func describe(_ subscription: SubscriptionRecord) -> String {
        var words = [subscription.status.rawValue]
        words.append(subscription.autoRenewEnabled ? "renews" : "auto-renew off")
        if subscription.priceIncrease == .pending { words.append("price consent asked") }
        return words.joined(separator: " · ")
    }
}

/// The subscription panel of an expanded transaction.
struct SubscriptionPanel {
    var id: String
    var productId: String
    var status: String
    var autoRenewEnabled: Bool
    var autoRenewProductId: String
    var expiresDate: String
    var renewalCount: Int
    var priceConsentPending: Bool
    var canRequestPriceConsent: Bool
    var isLive: Bool
    var renewalInfo: String
    var pendingRenewal: String

    init(_ subscription: SubscriptionRecord, renewalInfo: String, pendingRenewal: String) {
        id = String(subscription.latestTransactionID)
        productId = subscription.productID
        status = subscription.status.rawValue
        autoRenewEnabled = subscription.autoRenewEnabled
        autoRenewProductId = subscription.autoRenewProductID
        expiresDate = subscription.expiresDate.formatted(.iso8601)
        renewalCount = subscription.renewalCount
        priceConsentPending = subscription.priceIncrease == .pending
        isLive = subscription.status != .expired && subscription.status != .revoked
        canRequestPriceConsent = isLive && subscription.priceIncrease != .pending
        self.renewalInfo = renewalInfo
        self.pendingRenewal = pendingRenewal
    }
}

struct TransactionDetail {
    var id: String
    var header: String?
    var payload: String?
    var receiptEntry: String?
    var subscription: SubscriptionPanel?
    var refundRequest: RefundRequestPanel?
}

/// The refund request panel of an expanded transaction: where the request stands and the consumption information the
/// app's server sent for it.
struct RefundRequestPanel {
    var status: String
    var reason: String
    var requestDate: String
    var decisionDate: String?
    var consumption: [ConsumptionRow]
    var hasConsumption: Bool

    /// One Send Consumption Information request.
    struct ConsumptionRow {
        var date: String
        var version: Int
        var fields: String
    }

    init(_ request: RefundRequestRecord) {
        status = request.status.rawValue
        reason = request.reason.rawValue
        requestDate = request.requestDate.formatted(.iso8601)
        decisionDate = request.decisionDate?.formatted(.iso8601)
        consumption = request.consumption.map { information in
            ConsumptionRow(
                date: information.date.formatted(.iso8601), version: information.version,
                fields: (try? JSONValue.parse(Data(information.fields.utf8)).prettyPrinted) ?? information.fields
            )
        }
        hasConsumption = !consumption.isEmpty
    }
}

struct NotificationsModel {
    var rows: [NotificationRow]
    var count: Int
    /// How many older notifications are not shown.
    var hidden: Int?
    var isEmpty: Bool
    /// Whether this server sends notifications at all.
    var sends: Bool
    var defaultURL: String
    var appURLs: [AppURL]
}

struct AppURL {
    var bundleId: String
    var url: String
}

struct NotificationRow {
    var uuid: String
    var summary: String
    var date: String
    var dateText: String
    var transactionId: String
    var account: String
    var bundleId: String
    var delivery: String
    var tone: String
    var attemptCount: Int
    var nextAttemptDate: String?
    var nextAttemptDateText: String

    init(_ notification: NotificationRecord) {
        let entry = NotificationLogEntry(notification)
        uuid = entry.notificationUUID
        summary = entry.summary
        date = entry.date
        dateText = ManagerPages.readable(entry.date)
        transactionId = entry.transactionId
        account = entry.account
        bundleId = entry.bundleId
        delivery = entry.delivery
        tone = switch notification.delivery.state {
        case .delivered: "good"
        case .pending: "wait"
        case .failed: "bad"
        case .notSent: "muted"
        }
        attemptCount = entry.attempts.count
        nextAttemptDate = entry.nextAttemptDate
        nextAttemptDateText = entry.nextAttemptDate.map(ManagerPages.readable) ?? ""
    }
}

struct NotificationDetail {
    var row: NotificationRow
    var payload: String
    var attempts: [AttemptRow]
    var hasAttempts: Bool
}

struct AttemptRow {
    var date: String
    var result: String
    var succeeded: Bool
    /// `HTTP 503`, when the app's server answered.
    var status: String?
    var response: String?

    init(_ attempt: NotificationDelivery.Attempt) {
        date = ManagerPages.readable(attempt.date.formatted(.iso8601))
        result = attempt.result
        succeeded = attempt.result == "SUCCESS"
        status = attempt.httpStatusCode.map { "HTTP \($0)" }
        response = attempt.responseExcerpt
    }
}

struct CatalogModel {
    var products: [ProductRow]
    var hasProducts: Bool
    var accounts: [AccountRow]
    var hasAccounts: Bool
}

struct ProductRow {
    var id: String
    var type: String
    var referenceName: String
    var price: String
    var group: String
    var period: String

    init(_ product: CatalogProduct) {
        id = product.id
        type = product.type.rawValue
        referenceName = product.referenceName
        price = "\(product.price)"
        group = product.subscription.map { "\($0.groupID) · level \($0.level)" } ?? ""
        period = product.subscription.map { "\($0.period)" } ?? ""
    }
}

struct AccountRow {
    var id: String
    var storefront: String
    var canMakePayments: Bool
    var family: String
}
