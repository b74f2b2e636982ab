import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import TestProcesses
import Testing

/// The package's root directory.
let packageRoot = ChildProcess.packageRoot

/// The demo store every test sells from: consumables, non-consumables, a non-renewing subscription, a group.
let demoConfiguration = packageRoot.appendingPathComponent("Examples/Demo.storekit")

/// The store clock's start in every harness: 2026-01-15T12:00:00Z.
let testStart = Date(timeIntervalSince1970: 1_768_478_400)

enum Demo {
    static let coins = "com.example.demo.coins.100"
    static let bigCoins = "com.example.demo.coins.500"
    static let premium = "com.example.demo.premium"
    static let darkTheme = "com.example.demo.theme.dark"
    static let seasonPass = "com.example.demo.season.pass"
    static let monthly = "com.example.demo.plus.monthly"
    static let yearly = "com.example.demo.plus.yearly"
}

/// A transaction as an observer saw it at the moment of a callback.
struct TransactionView: Equatable, Sendable, CustomStringConvertible {
    var product: String
    var state: SKPaymentTransactionState
    var identifier: String?
    var quantity: Int
    var errorCode: SKError.Code?
    var originalIdentifier: String?
    /// The transaction object, kept alive so that identities are never reused by a later object.
    var transaction: SKPaymentTransaction
    var object: ObjectIdentifier { ObjectIdentifier(transaction) }

    init(_ transaction: SKPaymentTransaction) {
        self.transaction = transaction
        product = transaction.payment.productIdentifier
        state = transaction.transactionState
        identifier = transaction.transactionIdentifier
        quantity = transaction.payment.quantity
        errorCode = (transaction.error as? SKError)?.code
        originalIdentifier = transaction.original?.transactionIdentifier
    }

    var description: String { "\(product) \(state) \(identifier ?? "-")\(errorCode.map { " error \($0)" } ?? "")" }
}

/// Everything an observer was told, in order.
enum ObservedEvent: Sendable, CustomStringConvertible {
    case updated([TransactionView])
    case removed([TransactionView])
    case restoreFinished
    case restoreFailed(SKError.Code?)
    case downloads([DownloadView])
    case shouldAddStorePayment(String)
    case storefrontChanged(String?)
    case revoked([String])
    case shouldContinue(String, String)

    var description: String {
        switch self {
        case .updated(let views): "updated \(views)"
        case .removed(let views): "removed \(views)"
        case .restoreFinished: "restore finished"
        case .restoreFailed(let code): "restore failed \(String(describing: code))"
        case .downloads(let views): "downloads \(views)"
        case .shouldAddStorePayment(let product): "shouldAddStorePayment \(product)"
        case .storefrontChanged(let code): "storefront changed to \(code ?? "nil")"
        case .revoked(let products): "revoked \(products)"
        case .shouldContinue(let product, let storefront): "shouldContinue \(product) in \(storefront)"
        }
    }
}

/// A download as an observer saw it.
struct DownloadView: Equatable, Sendable {
    var product: String
    var state: SKDownloadState
    var progress: Float
    var contentURL: URL?

    init(_ download: SKDownload) {
        product = download.contentIdentifier
        state = download.state
        progress = download.progress
        contentURL = download.contentURL
    }
}

/// A value that changes while a test runs.
final class Watched<Value: Sendable>: Sendable {
    private let state: Locked<Value>

    init(_ value: Value) {
        state = Locked(value)
    }

    var current: Value { state.current }

    func update(_ change: (inout Value) -> Void) {
        state.withLock { change(&$0) }
    }
}

/// Waits for what a test expects of a payment queue, with no clock: each round lets the queue deliver everything
/// it has (``SKPaymentQueue/waitUntilIdle()``), then looks. A few rounds cover chains of work that span
/// queues (a relaunched queue, a second session); when the queue is idle and the thing still has not happened, it
/// never will, and the test fails saying what it waited for.
func expectEventually<T: Sendable>(
    _ what: String, on queue: SKPaymentQueue, sourceLocation: SourceLocation = #_sourceLocation,
    lastSeen: @escaping @Sendable () -> String, _ match: @escaping @Sendable () -> T?
) async throws -> T {
    for _ in 0..<settleRounds {
        if let found = match() { return found }
        await queue.waitUntilIdle()
    }
    if let found = match() { return found }
    Issue.record("The queue went idle without \(what). Last seen: \(lastSeen())", sourceLocation: sourceLocation)
    throw NeverHappened()
}

/// How many times a test lets a queue settle before it decides that what it waits for will not happen.
let settleRounds = 3

/// Records every call StoreKit makes, as an app's observer and queue delegate, and lets a test wait for one.
///
/// Like Apple's sample app it can finish transactions as they arrive (``autoFinish``).
final class ObserverSpy: NSObject, SKPaymentTransactionObserver, SKPaymentQueueDelegate, @unchecked Sendable {
    private let events = Watched<[ObservedEvent]>([])
    private let settings = Locked(Settings())

    struct Settings {
        var autoFinish = false
        var shouldAddStorePayment: (SKPayment) -> Bool = { _ in true }
        var savedPayments: [SKPayment] = []
        var shouldContinue = true
        var onUpdate: ((SKPaymentTransaction) -> Void)?
        var onDownloads: ((SKPaymentQueue, [SKDownload]) -> Void)?
        var queue: SKPaymentQueue?
    }

    /// The queue whose work the spy's waits settle; `SKPaymentQueue.default()` when unset.
    var queue: SKPaymentQueue? {
        get { settings.withLock { $0.queue } }
        set { settings.withLock { $0.queue = newValue } }
    }

    init(autoFinish: Bool = false, queue: SKPaymentQueue? = nil) {
        super.init()
        settings.withLock { $0.autoFinish = autoFinish; $0.queue = queue }
    }

    /// Finish purchased, restored and failed transactions as they arrive.
    var autoFinish: Bool {
        get { settings.withLock { $0.autoFinish } }
        set { settings.withLock { $0.autoFinish = newValue } }
    }

    /// The answer to `shouldAddStorePayment`; the payment is kept in ``savedPayments`` when the answer is `false`.
    func answerStorePayments(_ answer: @escaping (SKPayment) -> Bool) {
        settings.withLock { $0.shouldAddStorePayment = answer }
    }

    /// The delegate's answer to `shouldContinue`.
    func answerShouldContinue(_ answer: Bool) {
        settings.withLock { $0.shouldContinue = answer }
    }

    /// Runs for each updated transaction, on the callback queue, before the spy records it.
    func onUpdate(_ body: @escaping (SKPaymentTransaction) -> Void) {
        settings.withLock { $0.onUpdate = body }
    }

    /// Runs for each downloads update, on the callback queue, before the spy records it.
    func onDownloads(_ body: @escaping (SKPaymentQueue, [SKDownload]) -> Void) {
        settings.withLock { $0.onDownloads = body }
    }

    var savedPayments: [SKPayment] { settings.withLock { $0.savedPayments } }

    var log: [ObservedEvent] { events.current }

    private func record(_ event: ObservedEvent) {
        events.update { $0.append(event) }
    }

    /// Lets the spy's queue deliver everything, and returns what `match` finds in the log then.
    @discardableResult
    func wait<T: Sendable>(
        for what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ match: @escaping @Sendable ([ObservedEvent]) -> T?
    ) async throws -> T {
        let events = events
        return try await expectEventually(
            what, on: queue ?? SKPaymentQueue.default(), sourceLocation: sourceLocation,
            lastSeen: { "\(events.current)" }, { match(events.current) }
        )
    }

    /// Waits for an update in which a transaction of `product` reaches `state`.
    @discardableResult
    func waitForTransaction(
        _ product: String, _ state: SKPaymentTransactionState, after skipping: Int = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TransactionView {
        try await wait(for: "\(product) \(state)", sourceLocation: sourceLocation) { log in
            let matches = log.flatMap { event -> [TransactionView] in
                if case .updated(let views) = event { return views.filter { $0.product == product && $0.state == state } }
                return []
            }
            return matches.count > skipping ? matches[skipping] : nil
        }
    }

    /// Waits for the end of a restore.
    func waitForRestoreFinished(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await wait(for: "restore finished", sourceLocation: sourceLocation) { log in
            log.contains { if case .restoreFinished = $0 { true } else { false } } ? true : nil
        }
    }

    /// Waits until observers were told a transaction left the queue.
    func waitForRemoval(of view: TransactionView, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await wait(for: "\(view) removed", sourceLocation: sourceLocation) { log in
            log.contains { if case .removed(let views) = $0 { views.contains { $0.object == view.object } } else { false } } ? true : nil
        }
    }

    /// The updates received so far, flattened.
    var updates: [TransactionView] {
        log.flatMap { event -> [TransactionView] in
            if case .updated(let views) = event { return views }
            return []
        }
    }

    // MARK: SKPaymentTransactionObserver

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        let settings = self.settings.current
        for transaction in transactions { settings.onUpdate?(transaction) }
        record(.updated(transactions.map(TransactionView.init)))
        guard settings.autoFinish else { return }
        for transaction in transactions where [.purchased, .restored, .failed].contains(transaction.transactionState) {
            queue.finishTransaction(transaction)
        }
    }

    func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
        record(.removed(transactions.map(TransactionView.init)))
    }

    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        record(.restoreFinished)
    }

    func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {
        record(.restoreFailed((error as? SKError)?.code))
    }

    func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {
        settings.current.onDownloads?(queue, downloads)
        record(.downloads(downloads.map(DownloadView.init)))
    }

    func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        let answer = settings.current.shouldAddStorePayment(payment)
        if !answer { settings.withLock { $0.savedPayments.append(payment) } }
        record(.shouldAddStorePayment(product.productIdentifier))
        return answer
    }

    func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {
        record(.storefrontChanged(queue.storefront?.countryCode))
    }

    func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
        record(.revoked(productIdentifiers))
    }

    // MARK: SKPaymentQueueDelegate

    func paymentQueue(_ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction, in newStorefront: SKStorefront) -> Bool {
        record(.shouldContinue(transaction.payment.productIdentifier, newStorefront.countryCode))
        return settings.current.shouldContinue
    }
}

/// Answers a products request.
final class ProductsFetcher: NSObject, SKProductsRequestDelegate, @unchecked Sendable {
    private let continuation: Locked<CheckedContinuation<SKProductsResponse, any Error>?>
    private var request: SKProductsRequest?
    /// The request holds its delegate weakly: the fetcher keeps itself alive until it is answered.
    private var keepAlive: ProductsFetcher?

    private init(continuation: CheckedContinuation<SKProductsResponse, any Error>) {
        self.continuation = Locked(continuation)
    }

    /// Fetches products the way Apple's sample app does, through a delegate.
    static func fetch(_ identifiers: Set<String>, from queue: SKPaymentQueue?) async throws -> SKProductsResponse {
        try await withCheckedThrowingContinuation { continuation in
            let fetcher = ProductsFetcher(continuation: continuation)
            let request = queue.map { SKProductsRequest(productIdentifiers: identifiers, paymentQueue: $0) }
                ?? SKProductsRequest(productIdentifiers: identifiers)
            fetcher.request = request
            fetcher.keepAlive = fetcher
            request.delegate = fetcher
            request.start()
        }
    }

    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        continuation.withLock { $0?.resume(returning: response); $0 = nil }
    }

    func request(_ request: SKRequest, didFailWithError error: any Error) {
        continuation.withLock { $0?.resume(throwing: error); $0 = nil }
        keepAlive = nil
    }

    func requestDidFinish(_ request: SKRequest) {
        self.request = nil
        keepAlive = nil
    }
}

/// An isolated session on the demo store, its queue, and a spy attached as observer and delegate.
struct Harness {
    let session: SKTestSession
    let spy: ObserverSpy
    let hostedContent: URL?
    let queue: SKPaymentQueue

    init(autoFinish: Bool = false, hostedContent: URL? = nil, attach: Bool = true) throws {
        let session = try SKTestSession(
            contentsOf: demoConfiguration, scope: .isolated, hostedContentDirectory: hostedContent, clock: VirtualClock(start: testStart),
            transport: sessionTransport
        )
        session.disableDialogs = true
        self.init(session: session, queue: session.paymentQueue, autoFinish: autoFinish, hostedContent: hostedContent, attach: attach)
    }

    /// A harness around a queue of the session's store other than its own.
    init(session: SKTestSession, queue: SKPaymentQueue, autoFinish: Bool = false, hostedContent: URL? = nil, attach: Bool = true) {
        self.session = session
        self.queue = queue
        self.hostedContent = hostedContent
        spy = ObserverSpy(autoFinish: autoFinish, queue: queue)
        if attach {
            queue.delegate = spy
            queue.add(spy)
        }
    }

    /// The products with these identifiers, keyed by identifier.
    func products(_ identifiers: String...) async throws -> [String: SKProduct] {
        let response = try await ProductsFetcher.fetch(Set(identifiers), from: queue)
        return Dictionary(uniqueKeysWithValues: response.products.map { ($0.productIdentifier, $0) })
    }

    /// Adds a payment for a product.
    func buy(_ identifier: String, quantity: Int = 1) async throws {
        let product = try #require(try await products(identifier)[identifier])
        let payment = SKMutablePayment(product: product)
        payment.quantity = quantity
        queue.add(payment)
    }

    /// Deletes the hosted content folder the harness was made with.
    func removeHostedContent() {
        if let folder = hostedContent { try? FileManager.default.removeItem(at: folder) }
    }

    /// The transaction object in the queue that a view describes.
    func transaction(_ view: TransactionView) throws -> SKPaymentTransaction {
        try #require(queue.transactions.first { ObjectIdentifier($0) == view.object })
    }
}

/// A connection to a session's store that moves the account to another storefront the first time it is asked for
/// the account after ``arm()``: a customer who changes country while the store works on a payment.
final class StorefrontChangingConnection: StoreConnection {
    private let base: any StoreConnection
    private let engine: StoreEngine
    private let accountID: String
    private let storefront: String
    private let armed = Locked(false)

    init(base: any StoreConnection, engine: StoreEngine, accountID: String, to storefront: String) {
        self.base = base
        self.engine = engine
        self.accountID = accountID
        self.storefront = storefront
    }

    /// Makes the next account read change the storefront first.
    func arm() { armed.withLock { $0 = true } }

    func account(_ id: String) async throws(StoreError) -> Account {
        let change = armed.withLock { armed in defer { armed = false }; return armed }
        if change {
            var account = try await engine.account(accountID)
            account.storefront = storefront
            try await engine.saveAccount(account)
        }
        return try await base.account(id)
    }

    func settings() async throws(StoreError) -> StoreSettings { try await base.settings() }
    func products(for identifiers: Set<String>) async throws(StoreError) -> [CatalogProduct] { try await base.products(for: identifiers) }
    func purchase(_ request: PurchaseRequest) async throws(StoreError) -> TransactionRecord { try await base.purchase(request) }
    func finish(transactionID: UInt64, deviceID: UUID) async throws(StoreError) { try await base.finish(transactionID: transactionID, deviceID: deviceID) }
    func unfinishedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await base.unfinishedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func transactions(_ query: TransactionQuery) async throws(StoreError) -> [TransactionRecord] { try await base.transactions(query) }
    func restoreCompletedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await base.restoreCompletedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func purchaseIntents(accountID: String, bundleID: String) async throws(StoreError) -> [PurchaseIntentRecord] {
        try await base.purchaseIntents(accountID: accountID, bundleID: bundleID)
    }
    func removePurchaseIntent(_ id: UUID) async throws(StoreError) { try await base.removePurchaseIntent(id) }
    func redeemOfferCode(_ code: String, accountID: String, bundleID: String) async throws(StoreError) -> TransactionRecord {
        try await base.redeemOfferCode(code, accountID: accountID, bundleID: bundleID)
    }
    func subscriptions(accountID: String, bundleID: String) async throws(StoreError) -> [SubscriptionRecord] {
        try await base.subscriptions(accountID: accountID, bundleID: bundleID)
    }
    func appReceipt(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> Data {
        try await base.appReceipt(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func hostedContent(productID: String) async throws(StoreError) -> HostedContent? { try await base.hostedContent(productID: productID) }
    func rootCertificates() async throws(StoreError) -> [Data] { try await base.rootCertificates() }
    func requestRefund(transactionID: UInt64, accountID: String, approve: Bool, reason: String?) async throws(StoreError) {
        try await base.requestRefund(transactionID: transactionID, accountID: accountID, approve: approve, reason: reason)
    }
    func signedTransactions(_ ids: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        try await base.signedTransactions(ids, deviceID: deviceID)
    }
    func signedRenewalInfo(subscriptionIDs: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        try await base.signedRenewalInfo(subscriptionIDs: subscriptionIDs, deviceID: deviceID)
    }
    func signedAppTransaction(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> String {
        try await base.signedAppTransaction(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func externalPurchaseToken(tokenType: ExternalPurchaseTokenType?, accountID: String, bundleID: String) async throws(StoreError) -> ExternalPurchaseTokenRecord? {
        try await base.externalPurchaseToken(tokenType: tokenType, accountID: accountID, bundleID: bundleID)
    }
    func changes() async -> AsyncStream<StoreChange> { await base.changes() }
}
