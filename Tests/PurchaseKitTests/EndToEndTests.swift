import AppStoreEngine
import AppStoreFormats
import OpenStoreKit
import OpenStoreKitTest
import PurchaseKit
import Testing

/// The demo store the end-to-end tests sell from.
let demoConfiguration = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Examples/Demo.storekit")

/// The store clock's start: 2026-01-15T12:00:00Z.
let launchDate = Date(timeIntervalSince1970: 1_768_478_400)

enum Demo {
    static let coins = "com.example.demo.coins.100"
    static let premium = "com.example.demo.premium"
    static let darkTheme = "com.example.demo.theme.dark"
    static let monthly = "com.example.demo.plus.monthly"
    static let yearly = "com.example.demo.plus.yearly"
}

/// Values a callback hands over on the payment queue's callback queue, for the test to read.
///
/// `@unchecked Sendable`: `values` is guarded by `lock`.
final class Received<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}

/// An app built on PurchaseKit, launched on an isolated `SKTestSession` of the demo store: what the app makes at
/// launch, made the way the app makes it, with the session's queue where the app would use the default one.
struct LaunchedApp {
    let session: SKTestSession
    let controller: PaymentQueueController
    let products: ProductsCache
    let receipts: ReceiptReader
    var queue: SKPaymentQueue { session.paymentQueue }

    init(configure: (SKTestSession) -> Void = { _ in }) throws {
        session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: launchDate))
        session.disableDialogs = true
        configure(session)
        let queue = session.paymentQueue
        // The receipt's location, read once at launch, before anything was bought — as an app reads
        // `SKPaymentQueue.default().appStoreReceiptURL` (`Bundle.main.appStoreReceiptURL` on iOS).
        receipts = ReceiptReader(receiptURL: queue.appStoreReceiptURL) { SKReceiptRefreshRequest(receiptProperties: $0, paymentQueue: queue) }
        products = ProductsCache { SKProductsRequest(productIdentifiers: $0, paymentQueue: queue) }
        controller = PaymentQueueController(paymentQueue: queue)
        controller.startObserving()
    }

    /// Waits for the first value a callback hands over: each round lets the queue deliver everything it has. If the
    /// queue is idle and the value is still missing, it never comes.
    func first<Value>(_ received: Received<Value>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Value {
        for _ in 0..<3 {
            if let value = received.all.first { return value }
            await queue.waitUntilIdle()
        }
        return try #require(received.all.first, "The queue went idle without \(what).", sourceLocation: sourceLocation)
    }

    func retrieve(_ identifiers: Set<String>) async throws -> ProductsResult {
        let received = Received<ProductsResult>()
        products.retrieveProducts(identifiers) { received.append($0) }
        return try await first(received, "the products")
    }

    func product(_ identifier: String) async throws -> SKProduct {
        try #require(try await retrieve([identifier]).product(withIdentifier: identifier))
    }

    func purchase(_ identifier: String, finishesTransaction: Bool = true, onCompletion: @escaping (PurchaseOutcome) -> Void = { _ in }) async throws -> PurchaseOutcome {
        let received = Received<PurchaseOutcome>()
        controller.purchase(try await product(identifier), finishesTransaction: finishesTransaction) { outcome in
            onCompletion(outcome)
            received.append(outcome)
        }
        let outcome = try await first(received, "the outcome of buying \(identifier)")
        await queue.waitUntilIdle()
        return outcome
    }

    func restore() async throws -> RestoreOutcome {
        let received = Received<RestoreOutcome>()
        controller.restorePurchases { received.append($0) }
        return try await first(received, "the end of the restore")
    }

    func fetchReceipt(forceRefresh: Bool = false) async throws -> Result<Data, ReceiptError> {
        let received = Received<Result<Data, ReceiptError>>()
        receipts.fetchReceipt(forceRefresh: forceRefresh) { received.append($0) }
        return try await first(received, "the receipt")
    }
}

/// PurchaseKit against OpenStoreKit's store, with no doubles: an `SKTestSession` per test.
@Suite("PurchaseKit on an SKTestSession")
struct EndToEndTests {
    @Test("The products cache gets names, prices, periods, introductory offers and invalid identifiers from the store")
    func products() async throws {
        let app = try LaunchedApp()
        let result = try await app.retrieve([Demo.premium, Demo.monthly, Demo.yearly, "com.example.demo.nope"])
        #expect(result.error == nil)
        #expect(result.products.map(\.productIdentifier) == [Demo.monthly, Demo.yearly, Demo.premium])
        #expect(result.invalidProductIdentifiers == ["com.example.demo.nope"])
        let premium = try #require(result.product(withIdentifier: Demo.premium))
        #expect(premium.localizedPrice == "$9.99")
        #expect(premium.introductoryOfferDescription == nil)
        let monthly = try #require(result.product(withIdentifier: Demo.monthly))
        #expect(monthly.localizedPrice == "$4.99")
        #expect(monthly.subscriptionPeriodDescription == "1 month")
        #expect(monthly.introductoryOfferDescription == "1 week free")
        #expect(monthly.introductoryPrice?.localizedPrice == "$0.00")
        #expect(try #require(result.product(withIdentifier: Demo.yearly)).introductoryOfferDescription == "2 weeks free")
        // Asked again, everything comes from the cache at once.
        var again: ProductsResult?
        app.products.retrieveProducts([Demo.premium, "com.example.demo.nope"]) { again = $0 }
        #expect(again?.products.first === premium)
        #expect(again?.invalidProductIdentifiers == ["com.example.demo.nope"])
    }

    @Test("A receipt location read once at launch, before any purchase, has the receipt once the first purchase completes")
    func receiptAfterFirstPurchase() async throws {
        let app = try LaunchedApp()
        let url = try #require(app.receipts.receiptURL)
        #expect(!app.receipts.hasReceipt)
        #expect(throws: ReceiptError.noReceipt(url)) { try app.receipts.receiptData() }

        let readInCompletion = Received<[String]>()
        let receipts = app.receipts
        let outcome = try await app.purchase(Demo.premium) { _ in
            let productIDs = (try? AppReceipt(receiptData: receipts.receiptData()))?.inAppPurchases.map(\.productID) ?? []
            readInCompletion.append(productIDs)
        }
        let purchase = try #require(outcome.purchase)
        #expect(purchase.productIdentifier == Demo.premium)
        #expect(purchase.transactionDate == launchDate)
        #expect(readInCompletion.all == [[Demo.premium]], "the receipt lists the purchase when the app is told of it")

        let receipt = try AppReceipt(receiptData: try app.receipts.receiptData())
        #expect(receipt.bundleID == app.session.environment.bundleID)
        #expect(receipt.inAppPurchases.map(\.transactionID) == [purchase.transactionIdentifier])
        #expect(try app.receipts.base64EncodedReceipt() == (try app.receipts.receiptData()).base64EncodedString())
    }

    @Test("A purchase through the controller is finished: the queue is empty and the store has it")
    func purchaseFinishes() async throws {
        let app = try LaunchedApp()
        let outcome = try await app.purchase(Demo.coins)
        #expect(outcome.purchase?.needsFinishTransaction == false)
        #expect(app.queue.transactions.isEmpty)
        #expect(app.session.allTransactions().map(\.productIdentifier) == [Demo.coins])
    }

    @Test("A purchase the app finishes itself stays in the queue until finish(_:), and an unfinished one reaches the next launch's handler")
    func unfinishedUntilNextLaunch() async throws {
        let app = try LaunchedApp()
        let purchase = try #require(try await app.purchase(Demo.darkTheme, finishesTransaction: false).purchase)
        #expect(purchase.needsFinishTransaction)
        #expect(app.queue.transactions.map(\.payment.productIdentifier) == [Demo.darkTheme])

        // The next launch: a new queue and controller for the same device and store.
        let relaunchedQueue = SKPaymentQueue(environment: app.session.environment)
        let relaunched = PaymentQueueController(paymentQueue: relaunchedQueue)
        let delivered = Received<[Purchase]>()
        relaunched.unfinishedPurchasesHandler = { delivered.append($0) }
        relaunched.startObserving()
        var leftOver: [String] = []
        for _ in 0..<3 where leftOver.isEmpty {
            await relaunchedQueue.waitUntilIdle()
            leftOver = delivered.all.flatMap { $0.compactMap(\.transactionIdentifier) }
        }
        #expect(leftOver == [purchase.transactionIdentifier])
        await relaunchedQueue.waitUntilIdle()
        #expect(relaunchedQueue.transactions.isEmpty, "the handler's purchases are finished")
        withExtendedLifetime(relaunched) {}
    }

    @Test("A restore through the controller brings back the non-consumables and subscriptions, each pointing at its original purchase")
    func restore() async throws {
        let app = try LaunchedApp()
        let premium = try #require(try await app.purchase(Demo.premium).purchase)
        let monthly = try #require(try await app.purchase(Demo.monthly).purchase)
        _ = try await app.purchase(Demo.coins)

        let outcome = try await app.restore()
        #expect(outcome.error == nil)
        #expect(Set(outcome.restoredProductIdentifiers) == [Demo.premium, Demo.monthly], "consumables are never restored")
        let originals = Dictionary(outcome.restoredPurchases.map { ($0.productIdentifier, $0.originalTransactionIdentifier) }, uniquingKeysWith: { first, _ in first })
        #expect(originals[Demo.premium] == premium.transactionIdentifier)
        #expect(originals[Demo.monthly] == monthly.transactionIdentifier)
        #expect(outcome.restoredPurchases.allSatisfy { $0.transaction.transactionState == .restored })
        await app.queue.waitUntilIdle()
        #expect(app.queue.transactions.isEmpty)
    }

    @Test("A restore with nothing to restore completes with no purchases")
    func emptyRestore() async throws {
        let app = try LaunchedApp()
        let outcome = try await app.restore()
        #expect(outcome.restoredPurchases.isEmpty)
        #expect(outcome.error == nil)
    }

    @Test("A cancelled purchase fails with paymentCancelled and leaves nothing in the queue", arguments: [SKError.Code.paymentCancelled, .paymentNotAllowed])
    func failedPurchase(code: SKError.Code) async throws {
        let app = try LaunchedApp {
            $0.failTransactionsEnabled = true
            $0.failureError = code
        }
        let outcome = try await app.purchase(Demo.premium)
        #expect(outcome.error?.code == code)
        #expect(outcome.isCancelled == (code == .paymentCancelled))
        #expect(app.queue.transactions.isEmpty)
    }

    @Test("Ask to Buy: the purchase completes as deferred; the approval reaches the unfinished-purchases handler")
    func askToBuy() async throws {
        let app = try LaunchedApp { $0.askToBuyEnabled = true }
        let approved = Received<[Purchase]>()
        app.controller.unfinishedPurchasesHandler = { approved.append($0) }
        let outcome = try await app.purchase(Demo.premium)
        guard case .deferred(let productIdentifier) = outcome else {
            Issue.record("Expected a deferred purchase, got \(outcome)")
            return
        }
        #expect(productIdentifier == Demo.premium)
        #expect(app.queue.transactions.map(\.transactionState) == [.deferred])

        let request = try #require(app.session.allTransactions().first { $0.productIdentifier == Demo.premium })
        try app.session.approveAskToBuyTransaction(identifier: request.identifier)
        let purchases = try await app.first(approved, "the approved purchase")
        #expect(purchases.map(\.productIdentifier) == [Demo.premium])
        await app.queue.waitUntilIdle()
        #expect(app.queue.transactions.isEmpty)
    }

    @Test("A receipt refresh through the reader writes the receipt back where the app looks for it")
    func receiptRefresh() async throws {
        let app = try LaunchedApp()
        _ = try await app.purchase(Demo.premium)
        let url = try #require(app.receipts.receiptURL)
        try FileManager.default.removeItem(at: url)
        #expect(!app.receipts.hasReceipt)
        let data = try await app.fetchReceipt().get()
        #expect(try AppReceipt(receiptData: data).inAppPurchases.map(\.productID) == [Demo.premium])
        #expect(try await app.fetchReceipt(forceRefresh: true).get() == (try app.receipts.receiptData()))
    }
}
