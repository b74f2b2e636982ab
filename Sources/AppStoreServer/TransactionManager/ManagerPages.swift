import AppStoreEngine
import AppStoreFormats
import Foundation
import HTTPTypes
import Mustache
import StoreKitConfiguration

/// Renders the transaction manager's page and its sections from a store's current state.
struct ManagerPages: Sendable {
    let engine: StoreEngine
    let notificationSender: NotificationSender?
    let tenants: TenantDirectory?
    let basePath: String
    /// The name of the store at the server's bare paths, when this page is a tenant's.
    let serverStoreName: String?

    /// The most transactions or notifications a table shows, the newest: filters reach the others.
    static let rowLimit = 200

    /// The sections the page re-renders on its own when the store changes.
    static let sectionNames = ["clock", "settings", "buy", "transactions", "notifications", "catalog"]

    /// Where the page's forms send what they send: each control operation's method and path (relative to the store's
    /// routes, `{name}` for each parameter), by `operationId`, from the control API's document — the page writes no
    /// path of its own.
    static let operationsJSON: String = {
        let operations = Dictionary(uniqueKeysWithValues: ControlOperation.allCases.map { operation in
            (operation.rawValue, ["method": operation.method.rawValue, "path": String(operation.pathTemplate.dropFirst())])
        })
        let data = (try? JSONSerialization.data(withJSONObject: operations, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }()

    /// The whole page.
    func page(filters: TransactionFilters) async throws -> String {
        var tenantOptions: [TenantOption] = []
        if let tenants {
            // The server's own store first, at the bare paths; then every tenant, at its own.
            let current = engine.tenantID, own = serverStoreName ?? current
            let others = Set(try await tenants.summaries().map(\.name) + [current]).subtracting([own])
            tenantOptions = [TenantOption(name: own, path: "/", selected: own == current)]
                + others.sorted().map { TenantOption(name: $0, path: "/t/\($0)/", selected: $0 == current) }
        }
        let model = PageModel(
            tenant: engine.tenantID, basePath: basePath, version: StoreDefaults.version,
            tenants: tenantOptions, hasTenants: tenantOptions.count > 1,
            canReset: tenants != nil, operations: Self.operationsJSON,
            clock: await clockModel(), settings: await settingsModel(), buy: try await buyModel(),
            transactions: try await transactionsModel(filters), notifications: try await notificationsModel(),
            catalog: try await catalogModel()
        )
        return ManagerTemplates.render(model, "page")
    }

    /// One section's content, or `nil` for a name that is not a section.
    func section(_ name: String, filters: TransactionFilters) async throws -> String? {
        switch name {
        case "clock": ManagerTemplates.render(await clockModel(), name)
        case "settings": ManagerTemplates.render(await settingsModel(), name)
        case "buy": ManagerTemplates.render(try await buyModel(), name)
        case "transactions": ManagerTemplates.render(try await transactionsModel(filters), name)
        case "notifications": ManagerTemplates.render(try await notificationsModel(), name)
        case "catalog": ManagerTemplates.render(try await catalogModel(), name)
        default: nil
        }
    }

    // MARK: Sections

    private func clockModel() async -> ClockModel {
        let now = engine.clock.now()
        let rate = await engine.settings.timeRate
        return ClockModel(
            now: now.formatted(.iso8601),
            nowReadable: now.formatted(Date.FormatStyle(date: .complete, time: .standard, timeZone: .gmt).locale(Locale(identifier: "en_US"))) + " UTC",
            localNow: Self.dateInputValue(now),
            rates: TimeRate.allCases.map { Option(value: String(describing: $0), label: String(describing: $0), selected: $0 == rate) },
            presets: [("1d", "+1 day"), ("1w", "+1 week"), ("1mo", "+1 month"), ("1y", "+1 year")].map { Preset(by: $0.0, label: $0.1) }
        )
    }

    private func settingsModel() async -> SettingsModel {
        let stored = try? await engine.currentSettings()
        let settings = if let stored { stored } else { await engine.settings }
        let switches: [(String, String, Bool)] = [
            ("askToBuyEnabled", "Ask to Buy", settings.askToBuyEnabled),
            ("interruptedPurchasesEnabled", "Interrupted purchases", settings.interruptedPurchasesEnabled),
            ("failTransactionsEnabled", "Fail transactions", settings.failTransactionsEnabled),
            ("renewalBillingIssuesEnabled", "Billing issues at renewal", settings.renewalBillingIssuesEnabled),
            ("billingGracePeriodEnabled", "Billing grace period", settings.billingGracePeriodEnabled),
            ("refundRequestsAwaitDecision", "Refund requests await a decision", settings.refundRequestsAwaitDecision),
        ]
        return SettingsModel(
            switches: switches.map { Switch(name: $0.0, label: $0.1, checked: $0.2) },
            storefronts: Storefront.known.keys.sorted().map { Option(value: $0, label: $0, selected: $0 == settings.storefront) },
            locale: settings.locale, failureErrorCode: settings.failureErrorCode,
            renewalLimit: settings.renewalLimit.map(String.init) ?? ""
        )
    }

    private func buyModel() async throws -> BuyModel {
        let catalog = await engine.catalog
        let accounts = try await engine.accounts().map(\.id)
        return BuyModel(
            products: catalog.products.map { Option(value: $0.id, label: "\($0.referenceName) — \($0.id)", selected: false) },
            accounts: accounts, defaultAccount: StoreDefaults.accountID, defaultBundle: StoreDefaults.bundleID,
            winBackOffers: catalog.products.flatMap { product in
                (product.subscription?.winBackOffers ?? []).compactMap(\.offerID).map { Option(value: $0, label: "\($0) (\(product.id))", selected: false) }
            }
        )
    }

    private func transactionsModel(_ filters: TransactionFilters) async throws -> TransactionsModel {
        let all = try await engine.transactions(TransactionQuery())
        let catalog = await engine.catalog
        let subscriptions = try await subscriptionsByID(of: all)
        let names = Dictionary(catalog.products.map { ($0.id, $0.referenceName) }, uniquingKeysWith: { first, _ in first })
        let matching = all.reversed()
            .filter { (filters.account ?? $0.accountID) == $0.accountID && (filters.app ?? $0.bundleID) == $0.bundleID }
            .map { ($0, TransactionSummary($0)) }
            .filter { filters.matches($0.1) }
        let rows = matching.prefix(Self.rowLimit).map { record, summary in
            TransactionRow(record: record, summary: summary, name: names[record.productID], subscription: subscriptions[record.originalID])
        }
        func options(_ values: [String], selected: String?) -> [Option] {
            Array(Set(values)).sorted().map { Option(value: $0, label: $0, selected: $0 == selected) }
        }
        let states = ["purchased", "pending-approval", "declined", "interrupted", "failed", "refunded"]
        return TransactionsModel(
            rows: rows, isEmpty: rows.isEmpty, total: all.count, shown: rows.count,
            hidden: matching.count > rows.count ? matching.count - rows.count : nil,
            accounts: options(all.map(\.accountID), selected: filters.account),
            apps: options(all.map(\.bundleID), selected: filters.app),
            products: options(catalog.products.map(\.id) + all.map(\.productID), selected: filters.product),
            states: states.map { Option(value: $0, label: $0, selected: $0 == filters.state) },
            isFiltered: filters.account != nil || filters.app != nil || filters.product != nil || filters.state != nil
        )
    }

    private func subscriptionsByID(of transactions: [TransactionRecord]) async throws -> [UInt64: SubscriptionRecord] {
        var byID: [UInt64: SubscriptionRecord] = [:]
        for account in Set(transactions.filter { $0.productType == .autoRenewable }.map(\.accountID)) {
            for subscription in try await engine.subscriptions(accountID: account) { byID[subscription.id] = subscription }
        }
        return byID
    }

    private func notificationsModel() async throws -> NotificationsModel {
        let all = try await engine.notifications()
        let rows = all.suffix(Self.rowLimit).reversed().map(NotificationRow.init)
        let destinations = try? await notificationSender?.destinations()
        return NotificationsModel(
            rows: rows, count: all.count, hidden: all.count > rows.count ? all.count - rows.count : nil, isEmpty: rows.isEmpty, sends: notificationSender != nil,
            defaultURL: destinations?.defaultURL?.absoluteString ?? "",
            appURLs: (destinations?.urlsByBundleID ?? [:]).sorted { $0.key < $1.key }.map { AppURL(bundleId: $0.key, url: $0.value.absoluteString) }
        )
    }

    private func catalogModel() async throws -> CatalogModel {
        let catalog = await engine.catalog
        let accounts = try await engine.accounts()
        return CatalogModel(
            products: catalog.products.map(ProductRow.init), hasProducts: !catalog.products.isEmpty,
            accounts: accounts.map { AccountRow(id: $0.id, storefront: $0.storefront, canMakePayments: $0.canMakePayments, family: $0.familyID ?? "") },
            hasAccounts: !accounts.isEmpty
        )
    }

    // MARK: Expanded rows

    /// What a transaction's row shows expanded: its JWS decoded, its subscription's renewal info, its receipt entry
    /// and the actions for its subscription.
    func transactionDetail(_ id: UInt64) async throws -> String {
        let record = try await engine.transaction(id)
        var detail = TransactionDetail(id: String(id))
        if record.state.isCompleted {
            let jws = try CompactJWS(try engine.signedTransaction(record))
            detail.header = jws.readableHeader.prettyPrinted
            detail.payload = try jws.payloadJSON.prettyPrinted
            detail.receiptEntry = try ManagerPages.prettyJSON(VerifyReceiptService.info(record))
        }
        detail.refundRequest = record.refundRequest.map(RefundRequestPanel.init)
        if record.productType == .autoRenewable, let subscription = try? await engine.subscription(forTransaction: id) {
            let renewal = try CompactJWS(try await engine.signedRenewalInfo(subscription: subscription.id))
            detail.subscription = SubscriptionPanel(
                subscription, renewalInfo: try renewal.payloadJSON.prettyPrinted,
                pendingRenewal: try ManagerPages.prettyJSON(VerifyReceiptService.pendingRenewal(subscription))
            )
        }
        return ManagerTemplates.render(detail, "transaction-detail")
    }

    /// What a notification's row shows expanded: its payload decoded (with the transaction and renewal info it
    /// carries decoded too) and every attempt to send it.
    func notificationDetail(_ id: UUID) async throws -> String {
        let notification = try await engine.notification(id: id)
        let payload = try CompactJWS(try await engine.signedNotification(notification)).payloadJSON
        let detail = NotificationDetail(
            row: NotificationRow(notification), payload: payload.expandingSignedFields().prettyPrinted,
            attempts: notification.delivery.attempts.map(AttemptRow.init),
            hasAttempts: !notification.delivery.attempts.isEmpty
        )
        return ManagerTemplates.render(detail, "notification-detail")
    }

    // MARK: Helpers

    static func prettyJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(String(Int64((date.timeIntervalSince1970 * 1000).rounded())))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A date as an `<input type="datetime-local">` value in UTC, to the minute.
    static func dateInputValue(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateTimeSeparator(.standard).time(includingFractionalSeconds: false))
            .prefix(16).description
    }

    /// An ISO 8601 date as the tables show it: `2026-11-26 08:08:35`, in UTC like the store's clock.
    static func readable(_ iso8601: String) -> String {
        iso8601.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
