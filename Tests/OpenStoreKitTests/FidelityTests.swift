import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

// Test doubles as app test suites write them: subclasses of StoreKit's classes that override what they need.

private final class MockTransaction: SKPaymentTransaction, @unchecked Sendable {
    override var transactionState: SKPaymentTransactionState { .purchased }
    override var transactionIdentifier: String? { "mock-1" }
    override var payment: SKPayment {
        let payment = SKMutablePayment()
        payment.productIdentifier = "com.example.mock"
        return payment
    }
}

private final class MockQueue: SKPaymentQueue, @unchecked Sendable {
    let added = Locked<[String]>([])
    override func add(_ payment: SKPayment) {
        added.withLock { $0.append(payment.productIdentifier) }
    }
    override var transactions: [SKPaymentTransaction] { [MockTransaction()] }
}

private final class MockPeriod: SKProductSubscriptionPeriod, @unchecked Sendable {
    override var numberOfUnits: Int { 1 }
    override var unit: SKProduct.PeriodUnit { .month }
}

private final class MockDiscount: SKProductDiscount, @unchecked Sendable {
    override var price: NSDecimalNumber { 0 }
    override var paymentMode: PaymentMode { .freeTrial }
    override var subscriptionPeriod: SKProductSubscriptionPeriod { MockPeriod() }
}

private final class MockProduct: SKProduct, @unchecked Sendable {
    override var productIdentifier: String { "com.example.mock.monthly" }
    override var price: NSDecimalNumber { NSDecimalNumber(string: "4.99") }
    override var subscriptionPeriod: SKProductSubscriptionPeriod? { MockPeriod() }
    override var introductoryPrice: SKProductDiscount? { MockDiscount() }
}

private final class MockResponse: SKProductsResponse, @unchecked Sendable {
    override var products: [SKProduct] { [MockProduct()] }
    override var invalidProductIdentifiers: [String] { ["com.example.gone"] }
}

private final class MockStorefront: SKStorefront, @unchecked Sendable {
    override var countryCode: String { "GBR" }
    override var identifier: String { "143444" }
}

private final class MockDownload: SKDownload, @unchecked Sendable {
    override var state: SKDownloadState { .finished }
    override var contentIdentifier: String { "com.example.mock.content" }
}

private final class ProductsDelegate: NSObject, SKProductsRequestDelegate {
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {}
}

/// An observer as apps often split one: the base class conforms, a subclass adds behaviour.
private class BaseObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    let calls = Locked<[String]>([])
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions where transaction.transactionState != .purchasing {
            queue.finishTransaction(transaction)
        }
    }
    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {}
}

private final class RestoreTrackingObserver: BaseObserver, @unchecked Sendable {
    override func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        calls.withLock { $0.append("restoreFinished") }
    }
}

/// Where OpenStoreKit follows Apple's declarations of the Original API to the letter, so app code and app test
/// suites written for StoreKit compile and behave the same.
@Suite("Fidelity to Apple's declarations")
struct FidelityTests {
    @Test("Test doubles subclass StoreKit's classes with the initializers Apple has and override their members")
    func subclassedTestDoubles() {
        let transaction: SKPaymentTransaction = MockTransaction()
        #expect(transaction.transactionState == .purchased)
        #expect(transaction.transactionIdentifier == "mock-1")
        #expect(transaction.payment.productIdentifier == "com.example.mock")

        let response: SKProductsResponse = MockResponse()
        let product = response.products.first
        #expect(product?.price == NSDecimalNumber(string: "4.99"))
        #expect(product?.subscriptionPeriod?.unit == .month)
        #expect(product?.introductoryPrice?.paymentMode == .freeTrial)
        #expect(response.invalidProductIdentifiers == ["com.example.gone"])

        let storefront: SKStorefront = MockStorefront()
        #expect(storefront.countryCode == "GBR")
        let download: SKDownload = MockDownload()
        #expect(download.state == .finished)

        // The plain initializers give empty values, as StoreKit's do.
        #expect(SKPaymentTransaction().transactionState == .purchasing)
        #expect(SKProductsResponse().products.isEmpty)
        #expect(SKProductDiscount().numberOfPeriods == 0)
        #expect(SKProductSubscriptionPeriod().numberOfUnits == 0)
        #expect(SKStorefront().countryCode.isEmpty)
        #expect(SKDownload().contentLength == 0)
    }

    @Test("A payment queue double replaces the queue's behaviour, and its default() is an instance of the double")
    func paymentQueueDouble() {
        let queue = MockQueue.default()
        #expect(MockQueue.default() === queue)
        queue.add(SKPayment(product: MockProduct()))
        #expect(queue.added.current == ["com.example.mock.monthly"])
        #expect(queue.transactions.first?.transactionState == .purchased)
        #expect(SKPaymentQueue.default() !== queue)
        #expect(SKPaymentQueue.default() === SKPaymentQueue.default())
    }

    @Test("SKProductsRequest.delegate takes and gives an SKProductsRequestDelegate; SKRequest.delegate an SKRequestDelegate")
    func productsRequestDelegateType() {
        let delegate = ProductsDelegate()
        let request = SKProductsRequest(productIdentifiers: [Demo.premium])
        request.delegate = delegate
        let typed: (any SKProductsRequestDelegate)? = request.delegate
        #expect(typed === delegate)
        let base: SKRequest = request
        let untyped: (any SKRequestDelegate)? = base.delegate
        #expect(untyped === delegate)
    }

    @Test("SKError bridges to and from NSError with its user info, and matches codes in catch clauses")
    func errorBridging() throws {
        let error = SKError(.paymentCancelled, userInfo: [NSLocalizedDescriptionKey: "Cancelled by the customer."])
        #expect(error.userInfo[NSLocalizedDescriptionKey] as? String == "Cancelled by the customer.")
        #expect(error.errorCode == 2)

        let nsError = NSError(domain: SKErrorDomain, code: 18, userInfo: [NSLocalizedDescriptionKey: "Not eligible."])
        let bridged = SKError(_nsError: nsError)
        #expect(bridged.code == .ineligibleForOffer)
        #expect(bridged.userInfo[NSLocalizedDescriptionKey] as? String == "Not eligible.")
        #expect(SKError(.unknown).userInfo[NSLocalizedDescriptionKey] as? String == "An unknown error occurred.")

        do {
            throw bridged
        } catch let error as SKError where error.code == .ineligibleForOffer {
            #expect(error.localizedDescription == "Not eligible.")
        } catch {
            Issue.record("caught \(error) instead of SKError.ineligibleForOffer")
        }
    }

    @Test("Finishing a purchasing transaction stops the program, as StoreKit raises an exception")
    func finishingPurchasingTransactionTraps() async {
        await #expect(processExitsWith: .failure) {
            SKPaymentQueue().finishTransaction(SKPaymentTransaction())
        }
    }

    @Test("An observer subclass's override of an optional method its base class declares is called")
    func subclassOverridesOptionalObserverMethod() async throws {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        let observer = RestoreTrackingObserver()
        session.paymentQueue.add(observer)
        session.paymentQueue.restoreCompletedTransactions()
        await session.paymentQueue.waitUntilIdle()
        #expect(observer.calls.current == ["restoreFinished"])
    }

    @Test(
        "A blocked callback queue delays the callbacks, never the store work: finishes and restores reach the store first",
        .timeLimit(.minutes(1))
    )
    func blockedCallbackQueueDoesNotStallStoreWork() async throws {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        let callbacks = DispatchQueue(label: "blocked callbacks")
        let queue = SKPaymentQueue(environment: session.environment, callbackQueue: callbacks)
        let observer = RecordingTransactionObserver()
        queue.add(observer)
        let premium = try #require(try await ProductsFetcher.fetch([Demo.premium], from: queue).products.first)
        queue.add(SKPayment(product: premium))
        await queue.waitUntilIdle()
        let purchase = try #require(observer.updatedTransactions.last { $0.state == .purchased }?.transaction)
        let purchaseID = try #require(purchase.transactionIdentifier.flatMap(UInt64.init))

        // The app's callback queue is stuck in some long work.
        let release = DispatchSemaphore(value: 0)
        callbacks.async { release.wait() }
        let events = await session.engine.events()
        queue.finishTransaction(purchase)
        queue.restoreCompletedTransactions()

        // The restore comes after the finish in the queue's order, so once the store recorded the restore, the
        // finish is recorded too — all while no callback could run.
        for await event in events {
            if case .transactionUpdated(let record) = event, record.origin == .restore { break }
        }
        let unfinished = try await session.engine.unfinishedTransactions(
            accountID: session.environment.accountID, bundleID: session.environment.bundleID, deviceID: session.environment.deviceID
        )
        #expect(!unfinished.contains { $0.id == purchaseID })
        #expect(observer.removedTransactions.isEmpty)

        release.signal()
        await queue.waitUntilIdle()
        #expect(observer.removedTransactions.map { $0 === purchase } == [true])
        #expect(observer.updatedTransactions.last?.state == .restored)
        #expect(observer.events.contains { if case .restoreFinished = $0 { true } else { false } })
    }
}
