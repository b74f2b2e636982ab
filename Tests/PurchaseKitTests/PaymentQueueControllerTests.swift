#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import PurchaseKit
import Testing

/// The payment-queue controller, driven by hand: the test plays StoreKit's part, calling the observer methods with
/// transaction doubles, and reads what the controller asked of a queue double.
@Suite("PaymentQueueController with doubles")
struct PaymentQueueControllerTests {
    let queue = PaymentQueueDouble()
    let controller: PaymentQueueController
    let premium = ProductDouble("com.example.premium", price: "9.99")
    let coins = ProductDouble("com.example.coins", price: "0.99")
    let purchaseDate = Date(timeIntervalSince1970: 1_768_478_400)

    init() {
        controller = PaymentQueueController(paymentQueue: queue)
    }

    @Test("Purchasing adds one payment with the product, quantity and username, and starts observing the queue once")
    func purchaseAddsPayment() throws {
        controller.purchase(coins, quantity: 3, applicationUsername: "user-7", simulatesAskToBuyInSandbox: true) { _ in }
        controller.purchase(premium) { _ in }
        #expect(queue.observers.count == 1)
        #expect(queue.observers.first === controller)
        #expect(queue.addedPayments.map(\.productIdentifier) == ["com.example.coins", "com.example.premium"])
        let payment = try #require(queue.addedPayments.first)
        #expect(payment.quantity == 3)
        #expect(payment.applicationUsername == "user-7")
        #expect(payment.simulatesAskToBuyInSandbox)
        #expect(queue.addedPayments.last?.quantity == 1)
    }

    @Test("A purchased transaction is finished, then its purchase's completion gets the transaction's details")
    func purchasedCompletesAndFinishes() throws {
        var outcomes: [PurchaseOutcome] = []
        controller.purchase(premium) { outcome in
            // Finished before the completion runs, so the app never delivers a purchase StoreKit will send again.
            #expect(queue.finishedTransactions.count == 1)
            outcomes.append(outcome)
        }
        let transaction = TransactionDouble(.purchased, productIdentifier: "com.example.premium", identifier: "1000", date: purchaseDate)
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        let purchase = try #require(outcomes.first?.purchase)
        #expect(outcomes.count == 1)
        #expect(purchase.productIdentifier == "com.example.premium")
        #expect(purchase.transactionIdentifier == "1000")
        #expect(purchase.transactionDate == purchaseDate)
        #expect(purchase.transaction === transaction)
        #expect(!purchase.needsFinishTransaction)
        #expect(queue.finished(transaction))
    }

    @Test("A purchase the caller finishes itself stays in the queue until finish(_:)")
    func callerFinishes() throws {
        var purchase: Purchase?
        controller.purchase(coins, finishesTransaction: false) { purchase = $0.purchase }
        let transaction = TransactionDouble(.purchased, productIdentifier: "com.example.coins", identifier: "1001")
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        let delivered = try #require(purchase)
        #expect(delivered.needsFinishTransaction)
        #expect(queue.finishedTransactions.isEmpty)
        controller.finish(delivered)
        #expect(queue.finished(transaction))
    }

    @Test("A purchasing transaction completes nothing and is not finished")
    func purchasingIsIgnored() {
        var outcomes: [PurchaseOutcome] = []
        controller.purchase(premium) { outcomes.append($0) }
        let transaction = TransactionDouble(.purchasing, productIdentifier: "com.example.premium")
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        #expect(outcomes.isEmpty)
        #expect(queue.finishedTransactions.isEmpty)
        // The same object moves on, as StoreKit updates a transaction in place.
        transaction.state = .purchased
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        #expect(outcomes.count == 1)
        #expect(queue.finished(transaction))
    }

    @Test("A cancelled payment fails with paymentCancelled, is finished, and reads as cancelled")
    func cancelled() throws {
        var outcome: PurchaseOutcome?
        controller.purchase(premium) { outcome = $0 }
        let transaction = TransactionDouble(.failed, productIdentifier: "com.example.premium", error: SKError(.paymentCancelled))
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        let result = try #require(outcome)
        #expect(result.isCancelled)
        #expect(result.error?.code == .paymentCancelled)
        #expect(result.purchase == nil)
        #expect(queue.finished(transaction))
    }

    @Test(
        "A failed transaction's error reaches the completion as an SKError with its code, whether StoreKit gave an SKError or an NSError of SKErrorDomain",
        arguments: [SKError.Code.unknown, .clientInvalid, .paymentCancelled, .paymentInvalid, .paymentNotAllowed, .storeProductNotAvailable, .cloudServiceNetworkConnectionFailed, .ineligibleForOffer]
    )
    func failureCodes(code: SKError.Code) throws {
        let errors: [any Error] = [
            SKError(code, userInfo: [NSLocalizedDescriptionKey: "from StoreKit"]),
            NSError(domain: SKErrorDomain, code: code.rawValue, userInfo: [NSLocalizedDescriptionKey: "from StoreKit"]),
        ]
        for error in errors {
            var outcome: PurchaseOutcome?
            controller.purchase(premium) { outcome = $0 }
            controller.paymentQueue(queue, updatedTransactions: [TransactionDouble(.failed, productIdentifier: "com.example.premium", error: error)])
            let failure = try #require(outcome?.error)
            #expect(failure.code == code)
            #expect(failure.localizedDescription == "from StoreKit")
            #expect((failure as NSError).domain == SKErrorDomain)
            #expect(outcome?.isCancelled == (code == .paymentCancelled))
        }
        #expect(queue.finishedTransactions.count == 2)
    }

    @Test("An error from outside StoreKit becomes SKError.unknown with the original as the underlying error")
    func foreignError() throws {
        var outcome: PurchaseOutcome?
        controller.purchase(premium) { outcome = $0 }
        let network = NSError(domain: NSURLErrorDomain, code: -1009, userInfo: [NSLocalizedDescriptionKey: "The Internet connection appears to be offline."])
        controller.paymentQueue(queue, updatedTransactions: [TransactionDouble(.failed, productIdentifier: "com.example.premium", error: network)])
        let failure = try #require(outcome?.error)
        #expect(failure.code == .unknown)
        #expect(failure.localizedDescription == "The Internet connection appears to be offline.")
        let underlying = try #require(failure.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == NSURLErrorDomain)
        #expect(underlying.code == -1009)
    }

    @Test("A failed transaction without an error still completes its purchase, as unknown")
    func failureWithoutError() {
        var outcome: PurchaseOutcome?
        controller.purchase(premium) { outcome = $0 }
        controller.paymentQueue(queue, updatedTransactions: [TransactionDouble(.failed, productIdentifier: "com.example.premium")])
        #expect(outcome?.error?.code == .unknown)
    }

    @Test("A deferred purchase completes as deferred and stays in the queue; its approval later reaches the unfinished-purchases handler")
    func deferredThenApproved() throws {
        var outcomes: [PurchaseOutcome] = []
        var unfinished: [Purchase] = []
        controller.unfinishedPurchasesHandler = { unfinished += $0 }
        controller.purchase(premium) { outcomes.append($0) }
        let transaction = TransactionDouble(.deferred, productIdentifier: "com.example.premium")
        queue.pendingTransactions = [transaction]
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        guard case .deferred(let productIdentifier) = try #require(outcomes.first) else {
            Issue.record("Expected a deferred outcome, got \(outcomes)")
            return
        }
        #expect(productIdentifier == "com.example.premium")
        #expect(queue.finishedTransactions.isEmpty)
        #expect(queue.transactions.count == 1)

        transaction.state = .purchased
        transaction.identifier = "1002"
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        #expect(outcomes.count == 1, "the purchase already completed")
        #expect(unfinished.map(\.transactionIdentifier) == ["1002"])
        #expect(queue.finished(transaction))
        #expect(queue.transactions.isEmpty)
    }

    @Test("Transactions go to the purchase of their product, whatever order they come in; two purchases of one product complete oldest first")
    func routesByProductIdentifier() {
        var completed: [String] = []
        controller.purchase(premium) { completed.append("premium: \($0.purchase?.transactionIdentifier ?? "failed")") }
        controller.purchase(coins) { completed.append("coins #1: \($0.purchase?.transactionIdentifier ?? "failed")") }
        controller.purchase(coins) { completed.append("coins #2: \($0.purchase?.transactionIdentifier ?? "failed")") }
        controller.paymentQueue(queue, updatedTransactions: [
            TransactionDouble(.purchased, productIdentifier: "com.example.coins", identifier: "11"),
            TransactionDouble(.failed, productIdentifier: "com.example.coins", error: SKError(.paymentCancelled)),
            TransactionDouble(.purchased, productIdentifier: "com.example.premium", identifier: "13"),
        ])
        #expect(completed == ["coins #1: 11", "coins #2: failed", "premium: 13"])
        #expect(queue.finishedTransactions.count == 3)
    }

    @Test("A purchased transaction no purchase asked for stays unfinished until there is a handler; with one, it is finished and delivered")
    func transactionsFromEarlierLaunches() {
        let leftOver = TransactionDouble(.purchased, productIdentifier: "com.example.premium", identifier: "900")
        controller.paymentQueue(queue, updatedTransactions: [leftOver])
        #expect(queue.finishedTransactions.isEmpty, "without a handler no one delivers it, so StoreKit must send it again")

        var delivered: [[String]] = []
        controller.unfinishedPurchasesHandler = { delivered.append($0.compactMap(\.transactionIdentifier)) }
        let otherDevice = TransactionDouble(.purchased, productIdentifier: "com.example.coins", identifier: "901")
        controller.paymentQueue(queue, updatedTransactions: [leftOver, otherDevice])
        #expect(delivered == [["900", "901"]], "one call per batch")
        #expect(queue.finished(leftOver) && queue.finished(otherDevice))
    }

    @Test("With finishesUnfinishedPurchases off, the handler's purchases wait for finish(_:)")
    func unfinishedLeftToTheApp() throws {
        var delivered: [Purchase] = []
        controller.finishesUnfinishedPurchases = false
        controller.unfinishedPurchasesHandler = { delivered += $0 }
        let transaction = TransactionDouble(.purchased, productIdentifier: "com.example.premium", identifier: "902")
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        let purchase = try #require(delivered.first)
        #expect(purchase.needsFinishTransaction)
        #expect(queue.finishedTransactions.isEmpty)
        controller.finish(purchase)
        #expect(queue.finished(transaction))
    }

    @Test("A failed transaction no purchase asked for is finished and reported to no one")
    func strayFailure() {
        var delivered: [Purchase] = []
        controller.unfinishedPurchasesHandler = { delivered += $0 }
        let transaction = TransactionDouble(.failed, productIdentifier: "com.example.premium", error: SKError(.paymentNotAllowed))
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        #expect(delivered.isEmpty)
        #expect(queue.finished(transaction))
    }

    @Test("A restore collects the restored transactions, finishes them, and completes when the queue says the restore finished")
    func restore() throws {
        var outcomes: [RestoreOutcome] = []
        controller.restorePurchases(applicationUsername: "user-7") { outcomes.append($0) }
        #expect(queue.restores == ["user-7"])
        #expect(queue.observers.count == 1)
        let originalPremium = TransactionDouble(.purchased, productIdentifier: "com.example.premium", identifier: "500")
        let restored = [
            TransactionDouble(.restored, productIdentifier: "com.example.premium", identifier: "600", original: originalPremium),
            TransactionDouble(.restored, productIdentifier: "com.example.theme", identifier: "601"),
        ]
        controller.paymentQueue(queue, updatedTransactions: [restored[0]])
        controller.paymentQueue(queue, updatedTransactions: [restored[1]])
        #expect(outcomes.isEmpty, "the restore is not over until StoreKit says so")
        controller.paymentQueueRestoreCompletedTransactionsFinished(queue)
        let outcome = try #require(outcomes.first)
        #expect(outcomes.count == 1)
        #expect(outcome.error == nil)
        #expect(outcome.restoredProductIdentifiers == ["com.example.premium", "com.example.theme"])
        #expect(outcome.restoredPurchases.first?.originalTransactionIdentifier == "500")
        #expect(outcome.restoredPurchases.allSatisfy { !$0.needsFinishTransaction })
        #expect(restored.allSatisfy(queue.finished))
    }

    @Test("A restore without an application username asks the queue without one; a second restore joins the first")
    func restoreJoins() {
        var completions = 0
        controller.restorePurchases { _ in completions += 1 }
        controller.restorePurchases { _ in completions += 1 }
        #expect(queue.restores == [nil])
        controller.paymentQueueRestoreCompletedTransactionsFinished(queue)
        #expect(completions == 2)
        controller.paymentQueueRestoreCompletedTransactionsFinished(queue)
        #expect(completions == 2, "a finish with no restore running completes nothing")
    }

    @Test("A failed restore completes with the error and keeps what was restored before it")
    func restoreFails() throws {
        var outcome: RestoreOutcome?
        controller.restorePurchases(finishesTransactions: false) { outcome = $0 }
        let transaction = TransactionDouble(.restored, productIdentifier: "com.example.premium", identifier: "602")
        controller.paymentQueue(queue, updatedTransactions: [transaction])
        controller.paymentQueue(queue, restoreCompletedTransactionsFailedWithError: NSError(domain: SKErrorDomain, code: SKError.cloudServiceNetworkConnectionFailed.rawValue))
        let result = try #require(outcome)
        #expect(result.error?.code == .cloudServiceNetworkConnectionFailed)
        #expect(result.restoredPurchases.map(\.transactionIdentifier) == ["602"])
        #expect(result.restoredPurchases.first?.needsFinishTransaction == true)
        #expect(queue.finishedTransactions.isEmpty)
    }

    @Test("A restored transaction outside a restore goes to the unfinished-purchases handler")
    func restoredOutsideRestore() {
        var delivered: [String] = []
        controller.unfinishedPurchasesHandler = { delivered += $0.map(\.productIdentifier) }
        controller.paymentQueue(queue, updatedTransactions: [TransactionDouble(.restored, productIdentifier: "com.example.premium", identifier: "603")])
        #expect(delivered == ["com.example.premium"])
    }

    @Test("Promoted purchases go ahead unless the handler says otherwise; revocations reach their handler")
    func storePaymentsAndRevocations() {
        let payment = SKPayment(product: premium)
        #expect(controller.paymentQueue(queue, shouldAddStorePayment: payment, for: premium))
        var asked: [String] = []
        controller.shouldAddStorePaymentHandler = { payment, product in
            asked.append(product.productIdentifier)
            return payment.productIdentifier != "com.example.premium"
        }
        #expect(!controller.paymentQueue(queue, shouldAddStorePayment: payment, for: premium))
        #expect(controller.paymentQueue(queue, shouldAddStorePayment: SKPayment(product: coins), for: coins))
        #expect(asked == ["com.example.premium", "com.example.coins"])

        var revoked: [String] = []
        controller.entitlementRevocationHandler = { revoked += $0 }
        controller.paymentQueue(queue, didRevokeEntitlementsForProductIdentifiers: ["com.example.premium"])
        #expect(revoked == ["com.example.premium"])
    }

    @Test("Observing starts once and stops once")
    func observing() {
        controller.startObserving()
        controller.startObserving()
        #expect(queue.observers.count == 1)
        controller.stopObserving()
        controller.stopObserving()
        #expect(queue.observers.isEmpty)
        #expect(queue.removedObserverCount == 1)
    }
}

@Suite("StoreKit errors as Apple's Foundation bridges them")
struct ErrorBridgingTests {
    @Test("An NSError of SKErrorDomain casts to SKError, as on Apple platforms")
    func nsErrorCastsToSKError() {
        let error: any Error = NSError(domain: SKErrorDomain, code: SKError.paymentCancelled.rawValue, userInfo: ["k": "v"])
        // Wrappers that test `transaction.error as? SKError` rely on this cast. Linux has no Objective-C bridging;
        // OpenStoreKit's SKError bridges itself (through `_ObjectiveCBridgeable`), so the cast works on both.
        let storeKitError = error as? SKError
        #expect(storeKitError?.code == .paymentCancelled)
        #expect(storeKitError?.userInfo["k"] as? String == "v")
        #expect(NSError(domain: "OtherDomain", code: 2) as? SKError == nil)
        let back = SKError(.paymentCancelled, userInfo: ["k": "v"]) as NSError
        #expect(back.domain == SKErrorDomain && back.code == 2 && back.userInfo["k"] as? String == "v")
    }
}
