// A.2 SKPaymentTransactionObserver, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// An observer that implements only what Apple requires: it compiles only if every other member has a default.
private final class MinimalObserver: NSObject, SKPaymentTransactionObserver {
    // A.2 SKPaymentTransactionObserver.paymentQueue(_:updatedTransactions:) — required
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {}
}

/// An observer that implements every member with Apple's signature and records which ran: called through
/// `any SKPaymentTransactionObserver`, its own implementation must run, so each is a protocol requirement (dynamically
/// dispatched), not only an extension method under the same name.
private final class FullObserver: NSObject, SKPaymentTransactionObserver {
    var calls: [String] = []

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        calls.append("updatedTransactions")
    }
    func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
        calls.append("removedTransactions")
    }
    func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {
        calls.append("restoreCompletedTransactionsFailedWithError")
    }
    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        calls.append("paymentQueueRestoreCompletedTransactionsFinished")
    }
    func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {
        calls.append("updatedDownloads")
    }
    func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        calls.append("shouldAddStorePayment")
        return true
    }
    func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {
        calls.append("paymentQueueDidChangeStorefront")
    }
    func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
        calls.append("didRevokeEntitlementsForProductIdentifiers")
    }
}

@Suite("A.2 SKPaymentTransactionObserver has Apple's declarations")
struct SKPaymentTransactionObserverConformance {
    @Test("A.2 SKPaymentTransactionObserver: one requirement, every optional member defaulted and callable")
    func declarations() {
        // A.2 SKPaymentTransactionObserver — protocol refining NSObjectProtocol
        let _: any NSObjectProtocol.Type = MinimalObserver.self
        let observer: any SKPaymentTransactionObserver = MinimalObserver()
        let _: any NSObjectProtocol = observer

        // A.2 SKPaymentTransactionObserver.paymentQueue(_:updatedTransactions:)
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue, [SKPaymentTransaction]) -> Void = {
            $0.paymentQueue($1, updatedTransactions: $2)
        }
        // A.2 SKPaymentTransactionObserver.paymentQueue(_:removedTransactions:) — optional
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue, [SKPaymentTransaction]) -> Void = {
            $0.paymentQueue($1, removedTransactions: $2)
        }
        // A.2 SKPaymentTransactionObserver.paymentQueue(_:restoreCompletedTransactionsFailedWithError:) — optional
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue, any Error) -> Void = {
            $0.paymentQueue($1, restoreCompletedTransactionsFailedWithError: $2)
        }
        // A.2 SKPaymentTransactionObserver.paymentQueueRestoreCompletedTransactionsFinished(_:) — optional
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue) -> Void = {
            $0.paymentQueueRestoreCompletedTransactionsFinished($1)
        }
        // A.2 SKPaymentTransactionObserver.paymentQueue(_:updatedDownloads:) — optional
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue, [SKDownload]) -> Void = {
            $0.paymentQueue($1, updatedDownloads: $2)
        }
        // A.2 SKPaymentTransactionObserver.paymentQueue(_:shouldAddStorePayment:for:) — optional
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue, SKPayment, SKProduct) -> Bool = {
            $0.paymentQueue($1, shouldAddStorePayment: $2, for: $3)
        }
        // A.2 SKPaymentTransactionObserver.paymentQueueDidChangeStorefront(_:) — optional
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue) -> Void = {
            $0.paymentQueueDidChangeStorefront($1)
        }
        // A.2 SKPaymentTransactionObserver.paymentQueue(_:didRevokeEntitlementsForProductIdentifiers:) — optional
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue, [String]) -> Void = {
            $0.paymentQueue($1, didRevokeEntitlementsForProductIdentifiers: $2)
        }
    }

    @Test("A.2 SKPaymentTransactionObserver: an observer's own implementation of each member is the one called")
    func membersAreRequirements() {
        let full = FullObserver()
        let observer: any SKPaymentTransactionObserver = full
        let queue = SKPaymentQueue()
        observer.paymentQueue(queue, updatedTransactions: [])
        observer.paymentQueue(queue, removedTransactions: [])
        observer.paymentQueue(queue, restoreCompletedTransactionsFailedWithError: SKError(.unknown))
        observer.paymentQueueRestoreCompletedTransactionsFinished(queue)
        observer.paymentQueue(queue, updatedDownloads: [])
        #expect(observer.paymentQueue(queue, shouldAddStorePayment: SKPayment(), for: SKProduct()))
        observer.paymentQueueDidChangeStorefront(queue)
        observer.paymentQueue(queue, didRevokeEntitlementsForProductIdentifiers: [])
        #expect(full.calls == [
            "updatedTransactions", "removedTransactions", "restoreCompletedTransactionsFailedWithError",
            "paymentQueueRestoreCompletedTransactionsFinished", "updatedDownloads", "shouldAddStorePayment",
            "paymentQueueDidChangeStorefront", "didRevokeEntitlementsForProductIdentifiers",
        ], "A.2 each SKPaymentTransactionObserver member is a requirement the observer's implementation satisfies")
    }
}
