import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import HTTPTypes
import AppStoreHosting
import StoreKitConfiguration
import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the transaction-manager commands do to a store.
///
/// Two ways to reach the same operations: ``EngineControl`` opens the store in the data directory; ``ServerControl``
/// asks a running `storekit serve` through its control API (`--server`), so the command acts on the store the
/// server holds — and on the apps connected to it — exactly as `SKTestSession` and the control API do.
protocol StoreControl: Sendable {
    /// Buys a product for an account.
    func purchase(_ request: PurchaseRequest) async throws -> TransactionSummary
    /// The transactions that match the query, oldest first.
    func transactions(_ query: TransactionQuery) async throws -> [TransactionSummary]
    /// Refunds a transaction; the refunded transaction first, then what was revoked with it.
    func refund(_ id: UInt64, reason: RevocationReason) async throws -> [TransactionSummary]
    /// A customer's refund request for a transaction: pending when the store waits for decisions, else decided now
    /// (refunded, or declined when `approve` is false); the transaction afterwards.
    func requestRefund(_ id: UInt64, reason: ConsumptionRequestReason, approve: Bool) async throws -> TransactionSummary
    /// Decides a transaction's pending refund request; the transaction afterwards.
    func decideRefund(_ id: UInt64, _ decision: RefundDecision, reason: RevocationReason) async throws -> TransactionSummary
    /// Reverses a transaction's refund (`REFUND_REVERSED`); the transactions restored, the reversed one first.
    func reverseRefund(_ id: UInt64) async throws -> TransactionSummary
    /// Deletes a transaction and what derives from it; their identifiers.
    func delete(_ id: UInt64) async throws -> [UInt64]
    /// Deletes every transaction.
    func clear() async throws
    /// Approves, declines or resolves a transaction.
    func act(_ action: TransactionAction, on id: UInt64) async throws -> TransactionSummary
    /// Renews the subscription a transaction belongs to now; the renewal.
    func renew(subscriptionOf id: UInt64) async throws -> TransactionSummary
    /// Changes the subscription a transaction belongs to; the subscription afterwards.
    func change(subscriptionOf id: UInt64, _ change: SubscriptionChange) async throws -> SubscriptionRecord
    /// Redeems an offer code outside any app.
    func redeem(code: String, accountID: String, bundleID: String) async throws -> TransactionSummary
    /// Starts a promoted purchase, as a customer tapping the product on the App Store.
    func promote(productID: String, accountID: String, bundleID: String, winBackOfferID: String?) async throws -> PurchaseIntentRecord
    /// An account's auto-renewable subscriptions, every app's when `bundleID` is `nil`.
    func subscriptions(accountID: String, bundleID: String?) async throws -> [SubscriptionRecord]
    /// One transaction, with its JWS when it completed.
    func transaction(_ id: UInt64) async throws -> TransactionSummary
    /// The subscription a transaction belongs to; `nil` when it is not of an auto-renewable subscription.
    func subscription(of transaction: TransactionSummary) async throws -> SubscriptionRecord?
    /// The notifications of the store's outbox that match the query, oldest first; with `signed`, each with the
    /// `signedPayload` an app server receives.
    func notifications(_ query: NotificationQuery, signed: Bool) async throws -> [NotificationLogEntry]
    /// One notification of the outbox, with its `signedPayload`.
    func notification(_ id: UUID) async throws -> NotificationLogEntry
    /// Sends a notification again: pending from now with a full retry schedule, its earlier attempts kept.
    func redeliver(notification id: UUID) async throws -> NotificationLogEntry
    /// Withdraws a parent's consent for a child's use of an app: the app's server gets `RESCIND_CONSENT`.
    func rescindConsent(accountID: String, bundleID: String) async throws -> NotificationLogEntry
    /// Puts an account in a Family Sharing group; the transactions shared with it and by it.
    func joinFamily(accountID: String, familyID: String) async throws -> [TransactionSummary]
    /// Takes an account out of its family; the transactions revoked, shared with it or by it.
    func leaveFamily(accountID: String) async throws -> [TransactionSummary]
    /// An external purchase token for an account's app, as the app gets it: the active custom link token of a type (a
    /// new one when the store issues one; `nil` when it issues none), or without a type a new notice-sheet token.
    func externalPurchaseToken(accountID: String, bundleID: String, tokenType: ExternalPurchaseTokenType?) async throws -> ExternalPurchaseTokenEntry?
}

/// What `approve`, `decline` and `resolve` do.
enum TransactionAction: String, Sendable {
    case approve, decline, resolve

    /// The control API's operation that does it.
    var operation: ControlOperation {
        switch self {
        case .approve: .approveTransaction
        case .decline: .declineTransaction
        case .resolve: .resolveTransaction
        }
    }
}

/// What `expire`, `auto-renew` and `price-consent` do.
enum SubscriptionChange: Sendable {
    case expire
    case autoRenew(Bool)
    case requestPriceConsent
    case answerPriceConsent(Bool)
}

/// The store in a data directory, opened in this process.
struct EngineControl: StoreControl {
    let engine: StoreEngine

    func purchase(_ request: PurchaseRequest) async throws -> TransactionSummary {
        try await TransactionSummary.signed(try await engine.purchase(request), by: engine)
    }

    func transactions(_ query: TransactionQuery) async throws -> [TransactionSummary] {
        try await engine.transactions(query).map { TransactionSummary($0) }
    }

    func refund(_ id: UInt64, reason: RevocationReason) async throws -> [TransactionSummary] {
        try await engine.refund(transactionID: id, reason: reason).map { TransactionSummary($0) }
    }

    func requestRefund(_ id: UInt64, reason: ConsumptionRequestReason, approve: Bool) async throws -> TransactionSummary {
        let account = try await engine.transaction(id).accountID
        try await engine.requestRefund(transactionID: id, accountID: account, approve: approve, reason: reason)
        return try await TransactionSummary.signed(try await engine.transaction(id), by: engine)
    }

    func decideRefund(_ id: UInt64, _ decision: RefundDecision, reason: RevocationReason) async throws -> TransactionSummary {
        try await TransactionSummary.signed(try await engine.decideRefundRequest(transactionID: id, decision, reason: reason)[0], by: engine)
    }

    func reverseRefund(_ id: UInt64) async throws -> TransactionSummary {
        try await TransactionSummary.signed(try await engine.reverseRefund(transactionID: id)[0], by: engine)
    }

    func delete(_ id: UInt64) async throws -> [UInt64] {
        try await engine.deleteTransaction(id)
    }

    func clear() async throws {
        try await engine.clearTransactions()
    }

    func act(_ action: TransactionAction, on id: UInt64) async throws -> TransactionSummary {
        let record = switch action {
        case .approve: try await engine.approveAskToBuy(transactionID: id)
        case .decline: try await engine.declineAskToBuy(transactionID: id)
        case .resolve: try await engine.resolveIssue(transactionID: id)
        }
        return TransactionSummary(record)
    }

    func renew(subscriptionOf id: UInt64) async throws -> TransactionSummary {
        TransactionSummary(try await engine.renewSubscription(try await engine.subscription(forTransaction: id).id))
    }

    func change(subscriptionOf id: UInt64, _ change: SubscriptionChange) async throws -> SubscriptionRecord {
        let subscription = try await engine.subscription(forTransaction: id).id
        return switch change {
        case .expire: try await engine.expireSubscription(subscription)
        case .autoRenew(let enabled): try await engine.setAutoRenew(subscription: subscription, enabled: enabled)
        case .requestPriceConsent: try await engine.requestPriceIncreaseConsent(subscription: subscription)
        case .answerPriceConsent(let consented): try await engine.answerPriceIncrease(subscription: subscription, consented: consented)
        }
    }

    func redeem(code: String, accountID: String, bundleID: String) async throws -> TransactionSummary {
        try await TransactionSummary.signed(try await engine.redeemOfferCode(code, accountID: accountID, bundleID: bundleID), by: engine)
    }

    func promote(productID: String, accountID: String, bundleID: String, winBackOfferID: String?) async throws -> PurchaseIntentRecord {
        try await engine.addPurchaseIntent(productID: productID, accountID: accountID, bundleID: bundleID, winBackOfferID: winBackOfferID)
    }

    func subscriptions(accountID: String, bundleID: String?) async throws -> [SubscriptionRecord] {
        try await engine.subscriptions(accountID: accountID, bundleID: bundleID)
    }

    func transaction(_ id: UInt64) async throws -> TransactionSummary {
        try await TransactionSummary.signed(try await engine.transaction(id), by: engine)
    }

    func subscription(of transaction: TransactionSummary) async throws -> SubscriptionRecord? {
        guard let id = UInt64(transaction.transactionId) else { return nil }
        do throws(StoreError) {
            return try await engine.subscription(forTransaction: id)
        } catch {
            if error == .invalidProductType { return nil }
            throw error
        }
    }

    func notifications(_ query: NotificationQuery, signed: Bool) async throws -> [NotificationLogEntry] {
        var entries: [NotificationLogEntry] = []
        for notification in try await engine.notifications(query) {
            entries.append(signed ? try await NotificationLogEntry.signed(notification, by: engine) : NotificationLogEntry(notification))
        }
        return entries
    }

    func notification(_ id: UUID) async throws -> NotificationLogEntry {
        try await NotificationLogEntry.signed(try await engine.notification(id: id), by: engine)
    }

    func redeliver(notification id: UUID) async throws -> NotificationLogEntry {
        NotificationLogEntry(try await engine.redeliverNotification(id: id))
    }

    func rescindConsent(accountID: String, bundleID: String) async throws -> NotificationLogEntry {
        NotificationLogEntry(try await engine.rescindConsent(accountID: accountID, bundleID: bundleID))
    }

    func joinFamily(accountID: String, familyID: String) async throws -> [TransactionSummary] {
        var shared: [TransactionSummary] = []
        for record in try await engine.joinFamily(accountID: accountID, familyID: familyID) {
            shared.append(try await TransactionSummary.signed(record, by: engine))
        }
        return shared
    }

    func leaveFamily(accountID: String) async throws -> [TransactionSummary] {
        try await engine.leaveFamily(accountID: accountID).map { TransactionSummary($0) }
    }

    func externalPurchaseToken(accountID: String, bundleID: String, tokenType: ExternalPurchaseTokenType?) async throws -> ExternalPurchaseTokenEntry? {
        guard let tokenType else { return try ExternalPurchaseTokenEntry(try await engine.issueExternalPurchaseToken(accountID: accountID, bundleID: bundleID)) }
        return try await engine.externalPurchaseCustomLinkToken(type: tokenType, accountID: accountID, bundleID: bundleID).map(ExternalPurchaseTokenEntry.init)
    }
}

/// A running `storekit serve`'s store (or one of its tenants), through the control API.
struct ServerControl: StoreControl {
    /// The store's base URL: the server's, or `…/t/{tenant}/`.
    let baseURL: URL

    func purchase(_ request: PurchaseRequest) async throws -> TransactionSummary {
        var body: [String: Any] = ["productId": request.productID, "account": request.accountID, "bundleId": request.bundleID, "quantity": request.quantity]
        if case .code(let code) = request.offer { body["offerCode"] = code }
        if let plan = request.billingPlanType { body["billingPlanType"] = plan.rawValue }
        return try await call(.purchase, body: body)
    }

    func transactions(_ query: TransactionQuery) async throws -> [TransactionSummary] {
        var parameters: [URLQueryItem] = []
        if let account = query.accountID { parameters.append(URLQueryItem(name: "account", value: account)) }
        if let bundle = query.bundleID { parameters.append(URLQueryItem(name: "bundleId", value: bundle)) }
        return try await call(.listTransactions, query: parameters)
    }

    func refund(_ id: UInt64, reason: RevocationReason) async throws -> [TransactionSummary] {
        [try await call(.refundTransaction, ["id": String(id)], body: ["reason": reason == .refundedDueToIssue ? "app-issue" : "other"])]
    }

    func requestRefund(_ id: UInt64, reason: ConsumptionRequestReason, approve: Bool) async throws -> TransactionSummary {
        try await call(.requestRefund, ["id": String(id)], body: ["reason": reason.rawValue, "approve": approve])
    }

    func decideRefund(_ id: UInt64, _ decision: RefundDecision, reason: RevocationReason) async throws -> TransactionSummary {
        var body: [String: Any] = ["reason": reason == .refundedDueToIssue ? "app-issue" : "other"]
        switch decision {
        case .refundFull: body["decision"] = "refund"
        case .refundProrated(let percentage):
            body["decision"] = "prorated"
            body["revocationPercentage"] = percentage
        case .decline: body["decision"] = "decline"
        }
        return try await call(.decideRefundRequest, ["id": String(id)], body: body)
    }

    func reverseRefund(_ id: UInt64) async throws -> TransactionSummary {
        try await call(.reverseRefund, ["id": String(id)])
    }

    func delete(_ id: UInt64) async throws -> [UInt64] {
        let answer: [String: [String]] = try await call(.deleteTransaction, ["id": String(id)])
        return (answer["deleted"] ?? []).compactMap(UInt64.init)
    }

    func clear() async throws {
        let _: [String: String] = try await call(.clearTransactions)
    }

    func act(_ action: TransactionAction, on id: UInt64) async throws -> TransactionSummary {
        try await call(action.operation, ["id": String(id)])
    }

    func renew(subscriptionOf id: UInt64) async throws -> TransactionSummary {
        let subscription: SubscriptionRecord = try await call(.subscriptionRenew, ["id": String(id)])
        return try await call(.getTransaction, ["id": String(subscription.latestTransactionID)])
    }

    func change(subscriptionOf id: UInt64, _ change: SubscriptionChange) async throws -> SubscriptionRecord {
        switch change {
        case .expire: try await call(.subscriptionExpire, ["id": String(id)])
        case .autoRenew(let enabled): try await call(.subscriptionAutoRenew, ["id": String(id)], body: ["enabled": enabled])
        case .requestPriceConsent: try await call(.subscriptionPriceIncrease, ["id": String(id)])
        case .answerPriceConsent(let consented): try await call(.subscriptionPriceIncreaseAnswer, ["id": String(id)], body: ["consented": consented])
        }
    }

    func redeem(code: String, accountID: String, bundleID: String) async throws -> TransactionSummary {
        try await call(.redeemOfferCode, body: ["code": code, "account": accountID, "bundleId": bundleID])
    }

    func promote(productID: String, accountID: String, bundleID: String, winBackOfferID: String?) async throws -> PurchaseIntentRecord {
        var body = ["productId": productID, "account": accountID, "bundleId": bundleID]
        body["winBackOfferId"] = winBackOfferID
        return try await call(.addPurchaseIntent, body: body)
    }

    func subscriptions(accountID: String, bundleID: String?) async throws -> [SubscriptionRecord] {
        var query = [URLQueryItem(name: "account", value: accountID)]
        if let bundleID { query.append(URLQueryItem(name: "bundleId", value: bundleID)) }
        return try await call(.listSubscriptions, query: query)
    }

    func transaction(_ id: UInt64) async throws -> TransactionSummary {
        try await call(.getTransaction, ["id": String(id)])
    }

    func subscription(of transaction: TransactionSummary) async throws -> SubscriptionRecord? {
        try await subscriptions(accountID: transaction.account, bundleID: transaction.bundleId)
            .first { String($0.id) == transaction.originalTransactionId }
    }

    func notifications(_ query: NotificationQuery, signed: Bool) async throws -> [NotificationLogEntry] {
        var parameters: [URLQueryItem] = []
        if let bundle = query.bundleID { parameters.append(URLQueryItem(name: "bundleId", value: bundle)) }
        if let since = query.startDate { parameters.append(URLQueryItem(name: "since", value: since.formatted(.iso8601))) }
        let entries: [NotificationLogEntry] = try await call(.listNotifications, query: parameters)
        guard signed else { return entries }
        var signedEntries: [NotificationLogEntry] = []
        for entry in entries {
            signedEntries.append(try await call(.getNotification, ["uuid": entry.notificationUUID]))
        }
        return signedEntries
    }

    func notification(_ id: UUID) async throws -> NotificationLogEntry {
        try await call(.getNotification, ["uuid": id.uuidString.lowercased()])
    }

    func redeliver(notification id: UUID) async throws -> NotificationLogEntry {
        try await call(.redeliverNotification, ["uuid": id.uuidString.lowercased()])
    }

    func rescindConsent(accountID: String, bundleID: String) async throws -> NotificationLogEntry {
        try await call(.rescindConsent, body: ["account": accountID, "bundleId": bundleID])
    }

    func joinFamily(accountID: String, familyID: String) async throws -> [TransactionSummary] {
        let family = try pathSegment(familyID, naming: "family", in: .joinFamily)
        let answer: [String: [String]] = try await call(.joinFamily, ["family": family], body: ["account": accountID])
        return try await transactions(answer["shared"] ?? [])
    }

    func leaveFamily(accountID: String) async throws -> [TransactionSummary] {
        let account = try pathSegment(accountID, naming: "account", in: .leaveFamily)
        let answer: [String: [String]] = try await call(.leaveFamily, ["account": account])
        return try await transactions(answer["revoked"] ?? [])
    }

    func externalPurchaseToken(accountID: String, bundleID: String, tokenType: ExternalPurchaseTokenType?) async throws -> ExternalPurchaseTokenEntry? {
        var body = ["account": accountID, "bundleId": bundleID]
        body["tokenType"] = tokenType?.rawValue
        return try await call(.createExternalPurchaseToken, body: body)
    }

    /// The transactions with the identifiers an answer listed, in full.
    private func transactions(_ ids: [String]) async throws -> [TransactionSummary] {
        var transactions: [TransactionSummary] = []
        for id in ids { transactions.append(try await call(.getTransaction, ["id": id])) }
        return transactions
    }

    /// `text` as one segment of a control API path. The server matches a path's segments as they are written, without
    /// decoding them, so a name that would need percent-encoding cannot travel in a path and is refused here.
    private func pathSegment(_ text: String, naming what: String, in operation: ControlOperation) throws -> String {
        let route = "\(operation.method) \(operation.pathTemplate)"
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~!$&'()*+,;=:@"))
        guard !text.isEmpty, text != ".", text != "..", text.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) else {
            throw CommandFailure("""
                The \(what) "\(text)" cannot be written in the control API's path (\(route)): use ASCII letters, \
                digits and - . _ ~ ! $ & ' ( ) * + , ; = : @ only, or act on the data directory's store (without --server).
                """)
        }
        return text
    }

    /// Where the store sends its App Store Server Notifications: every app's URL and those of particular apps.
    func notificationURLs() async throws -> NotificationDestinations {
        try await call(.getNotificationURL)
    }

    /// Sends the notifications of the app `bundleID` (of every app without a URL of its own when it is `nil`) to
    /// `url`; a `nil` URL stops sending them. The destinations afterwards.
    func setNotificationURL(_ url: URL?, bundleID: String?) async throws -> NotificationDestinations {
        var body: [String: Any] = ["url": url.map { $0.absoluteString as Any } ?? NSNull()]
        body["bundleId"] = bundleID
        return try await call(.setNotificationURL, body: body)
    }

    /// The store's settings: its test switches, storefront and locale.
    func settings() async throws -> StoreSettings {
        try await call(.getSettings)
    }

    /// Changes the settings named in `changes` (the control API's field names); the settings afterwards.
    func updateSettings(_ changes: [String: Any]) async throws -> StoreSettings {
        try await call(.updateSettings, body: changes)
    }

    /// Sends a control request — `operation`, at the path the control API's document gives it with `parameters`
    /// filled in — and decodes its JSON answer; a refusal becomes a ``CommandFailure`` with the server's message.
    func call<Answer: Decodable>(
        _ operation: ControlOperation, _ parameters: [String: String] = [:], body: [String: Any]? = nil, query: [URLQueryItem] = []
    ) async throws -> Answer {
        let data = try await send(operation, parameters, body: try body.map { try JSONSerialization.data(withJSONObject: $0) }, query: query)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(Answer.self, from: data)
        } catch {
            throw CommandFailure("The server's answer to \(operation.method) \(operation.path(parameters)) is not what this storekit expects (\(error)). Are both the same version?")
        }
    }

    /// Sends a control request with `body` (JSON) and returns the answer's bytes; a refusal becomes a
    /// ``CommandFailure`` with the server's message.
    func send(_ operation: ControlOperation, _ parameters: [String: String] = [:], body: Data? = nil, query: [URLQueryItem] = []) async throws -> Data {
        let path = operation.path(parameters)
        // The base URL ends in "/" (the server's, or its tenant's): the operation's path is relative to it.
        var components = URLComponents(url: baseURL.appendingPathComponent(String(path.dropFirst())), resolvingAgainstBaseURL: false)
        if !query.isEmpty { components?.queryItems = query }
        guard let url = components?.url else { throw CommandFailure("\(baseURL.absoluteString) is not a server URL.") }
        var request = URLRequest(url: url)
        request.httpMethod = operation.method.rawValue
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CommandFailure("Cannot reach the server at \(baseURL.absoluteString): \(error.localizedDescription). Is `storekit serve` running there?")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let message = (try? JSONDecoder().decode([String: String].self, from: data))?["error"] ?? String(decoding: data.prefix(300), as: UTF8.self)
            throw CommandFailure("The server refused \(operation.method) \(path) (\(status)): \(message)")
        }
        return data
    }
}

/// A command that could not do what it was asked: the message says why and what to do.
///
/// `storekit` prints it as `Error: <message>` and exits with status 1. Mistakes in the command line itself are
/// `ValidationError`s instead, which also print the command's usage.
struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    let description: String

    init(_ message: String) {
        description = message
    }
}

/// `--server`: the transaction-manager commands act on a running server instead of the data directory.
struct ServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A running `storekit serve` to act on through its control API, instead of the data directory.",
        discussion: "Defaults to $OPENSTOREKIT_SERVER. With --tenant, acts on that tenant of the server. Example: --server http://127.0.0.1:8080",
        valueName: "url"
    ))
    var server: String?

    /// The server's URL, from `--server` or `$OPENSTOREKIT_SERVER`; `nil` for the data directory.
    func serverURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL? {
        try Self.serverURL(server, environment: environment)
    }

    /// The server's URL, from `option` (a `--server` given) or `$OPENSTOREKIT_SERVER`; `nil` for the data directory.
    static func serverURL(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL? {
        guard let text = option ?? EnvironmentVariables.value(EnvironmentVariables.server, in: environment) else { return nil }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("\"\(text)\" is not a server URL. Give the address `storekit serve` prints, such as http://127.0.0.1:8080.")
        }
        return url
    }

    /// The store to act on: the server's (its tenant's with `--tenant`), else the data directory's, opened with the
    /// configuration `configuration` loads — which only a store in the data directory needs.
    func control(location: StoreLocationOptions, configuration: () throws -> StoreKitConfigurationFile?) throws -> any StoreControl {
        if let server = try serverControl(location: location) { return server }
        return EngineControl(engine: try location.openStore(configuration: try configuration()))
    }

    /// The store to act on, when it needs products: the server's (its tenant's with `--tenant`), else the storage's
    /// tenant selling `config`'s products, or the catalog stored with it (`storekit tenants create --config`).
    ///
    /// - Throws: A `ValidationError` that starts with `Missing --config` and goes on with `why`, when the tenant in the
    ///   storage has no catalog of its own and no `config` was given.
    func control(location: StoreLocationOptions, config: String?, why: String) async throws -> any StoreControl {
        if let server = try serverControl(location: location) { return server }
        let missing = ValidationError("""
                Missing --config: the store in the data directory needs the .storekit file \(why), and tenant \
                \(location.resolvedTenant) has no catalog of its own (`storekit tenants create NAME --config FILE` stores \
                one). Or act on a running server with --server URL.
                """)
        let database = location.database ?? EnvironmentVariables.value(EnvironmentVariables.databaseURL, in: ProcessInfo.processInfo.environment)
        // A data directory never written to holds no catalog: said without making it.
        if config == nil, database == nil, !FileManager.default.fileExists(atPath: location.directory.databaseURL.path) { throw missing }
        let engine = try location.openStore(configuration: try config.map(loadConfiguration))
        if config == nil, try await engine.storedCatalog() == nil { throw missing }
        return EngineControl(engine: engine)
    }

    /// The running server's store (its tenant's with `--tenant`) when `--server` or `$OPENSTOREKIT_SERVER` names one.
    func serverControl(location: StoreLocationOptions) throws -> ServerControl? {
        guard let server = try serverURL() else { return nil }
        var base = server.path.hasSuffix("/") ? server : server.appendingPathComponent("", isDirectory: true)
        if location.resolvedTenant != StoreDefaults.tenant {
            base = base.appendingPathComponent("t", isDirectory: true).appendingPathComponent(location.resolvedTenant, isDirectory: true)
        }
        return ServerControl(baseURL: base)
    }

    /// Where the command acts, for messages: the server, or the data directory.
    func place(location: StoreLocationOptions) throws -> String {
        try serverURL().map { "the server at \($0.absoluteString)" } ?? location.directory.url.path
    }
}
