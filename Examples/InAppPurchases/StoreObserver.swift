#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import Foundation

/// The app's single transaction observer, added at launch, as in Apple's sample: it handles every
/// transaction state, delivers purchases, and finishes transactions.
@MainActor
final class StoreObserver: NSObject {
    static let shared = StoreObserver()

    /// Whether the app finishes transactions as soon as it delivered them (the sample's behaviour).
    /// With `--manual-finish` they wait in the queue for the `finish` command.
    var finishesAutomatically = true

    /// Purchased transactions delivered this session.
    private(set) var purchased: [SKPaymentTransaction] = []
    /// Restored transactions delivered this session.
    private(set) var restored: [SKPaymentTransaction] = []

    private var hasRestorablePurchases = false
    private var waitingForOutcome: [String: CheckedContinuation<Void, Never>] = [:]
    private var waitingForRemoval: [ObjectIdentifier: CheckedContinuation<Void, Never>] = [:]
    private var waitingForRestore: CheckedContinuation<Void, Never>?

    var isAuthorizedForPayments: Bool {
        SKPaymentQueue.canMakePayments()
    }

    /// Buys a product and waits until the App Store answered (purchased, failed or deferred) and, when the app
    /// finishes automatically, until the transaction left the queue.
    func buy(_ product: SKProduct, quantity: Int) async {
        let payment = SKMutablePayment(product: product)
        payment.quantity = quantity
        await withCheckedContinuation { continuation in
            waitingForOutcome[product.productIdentifier] = continuation
            SKPaymentQueue.default().add(payment)
        }
    }

    /// Restores completed purchases and waits for the end of the restore.
    func restore() async {
        hasRestorablePurchases = false
        await withCheckedContinuation { continuation in
            waitingForRestore = continuation
            SKPaymentQueue.default().restoreCompletedTransactions()
        }
    }

    /// Finishes transactions waiting in the queue and waits until they left it.
    func finish(_ transactions: [SKPaymentTransaction]) async {
        for transaction in transactions {
            await withCheckedContinuation { continuation in
                waitingForRemoval[ObjectIdentifier(transaction)] = continuation
                SKPaymentQueue.default().finishTransaction(transaction)
            }
        }
    }

    // MARK: Handling transactions

    private func handlePurchased(_ transaction: SKPaymentTransaction) {
        purchased.append(transaction)
        Terminal.say("purchased \(transaction.payment.productIdentifier) ×\(transaction.payment.quantity) (transaction \(transaction.transactionIdentifier ?? "?"))")
        finishIfAutomatic(transaction)
    }

    private func handleFailed(_ transaction: SKPaymentTransaction) {
        var message = "failed \(transaction.payment.productIdentifier)"
        if let error = transaction.error {
            message += ": \(error.localizedDescription)"
        }
        // Don't tell the user about a purchase they cancelled.
        if (transaction.error as? SKError)?.code != .paymentCancelled {
            Terminal.say(message)
        }
        finishIfAutomatic(transaction)
    }

    private func handleRestored(_ transaction: SKPaymentTransaction) {
        hasRestorablePurchases = true
        restored.append(transaction)
        Terminal.say("restored \(transaction.payment.productIdentifier) (transaction \(transaction.transactionIdentifier ?? "?"), original \(transaction.original?.transactionIdentifier ?? "?"))")
        finishIfAutomatic(transaction)
    }

    private func finishIfAutomatic(_ transaction: SKPaymentTransaction) {
        if finishesAutomatically {
            SKPaymentQueue.default().finishTransaction(transaction)
        } else {
            Terminal.say("unfinished \(transaction.payment.productIdentifier) (transaction \(transaction.transactionIdentifier ?? "-")): type `finish` to finish it")
            resumeOutcome(of: transaction)
        }
    }

    private func resumeOutcome(of transaction: SKPaymentTransaction) {
        waitingForOutcome.removeValue(forKey: transaction.payment.productIdentifier)?.resume()
    }
}

extension StoreObserver: @preconcurrency SKPaymentTransactionObserver {
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions {
            switch transaction.transactionState {
            // Don't block the UI. Allow the user to continue using the app.
            case .purchasing: break
            // Ask to Buy: wait for the parent.
            case .deferred:
                Terminal.say("deferred \(transaction.payment.productIdentifier): waiting for approval")
                resumeOutcome(of: transaction)
            case .purchased: handlePurchased(transaction)
            case .failed: handleFailed(transaction)
            case .restored: handleRestored(transaction)
            @unknown default: fatalError("Unknown payment transaction state")
            }
        }
    }

    func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions {
            Terminal.say("finished \(transaction.payment.productIdentifier) (transaction \(transaction.transactionIdentifier ?? "-"))")
            waitingForRemoval.removeValue(forKey: ObjectIdentifier(transaction))?.resume()
            resumeOutcome(of: transaction)
        }
    }

    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        Terminal.say(hasRestorablePurchases ? "restore finished" : "restore finished: there are no restorable purchases")
        waitingForRestore?.resume()
        waitingForRestore = nil
    }

    func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {
        Terminal.say("restore failed: \(error.localizedDescription)")
        waitingForRestore?.resume()
        waitingForRestore = nil
    }

    func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        Terminal.say("promoted purchase of \(product.localizedTitle) from the App Store: continuing")
        return true
    }

    func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {
        Terminal.say("storefront changed to \(queue.storefront?.countryCode ?? "?")")
    }

    func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
        Terminal.say("revoked \(productIdentifiers.joined(separator: ", "))")
    }
}
