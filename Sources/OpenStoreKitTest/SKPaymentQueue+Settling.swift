public import OpenStoreKit

extension SKPaymentQueue {
    /// Waits until the queue has delivered everything: every payment, finish and restore asked for before the
    /// call, every change the store committed before the call (refunds, Ask to Buy answers, purchases made
    /// outside the app, storefront changes, promoted purchases), the downloads they started, and the observers'
    /// callbacks for all of it.
    ///
    /// An OpenStoreKit addition for tests; StoreKit has no such call. Use it instead of sleeping or polling:
    ///
    /// ```swift
    /// session.paymentQueue.add(payment)
    /// await session.paymentQueue.waitUntilIdle()
    /// #expect(observer.updatedTransactions.last?.transactionState == .purchased)
    /// ```
    ///
    /// Callbacks run on the queue's callback queue (the main queue for `SKPaymentQueue.default()`), so
    /// something must run that queue meanwhile; `swift test` does. Do not call it from the callback queue itself.
    public func waitUntilIdle() async {
        await settle()
    }
}
