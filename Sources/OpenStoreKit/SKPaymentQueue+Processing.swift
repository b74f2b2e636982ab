import AppStoreEngine
import Foundation
import AppStoreFormats
import StoreKitConfiguration

/// The queue's store work. Every method here runs as a job of the queue's worker, one at a time, so the
/// queue's view of the store never races with itself; callbacks go through ``SKPaymentQueue/callbackQueue``.
extension SKPaymentQueue {
    // MARK: Purchases

    /// Takes a new payment through the store: `.purchasing`, then the store's answer.
    func process(_ transaction: SKPaymentTransaction) async {
        let environment: StoreEnvironment
        do throws(SKError) {
            environment = try storeEnvironment()
        } catch {
            deliver([(transaction, transaction.snapshot)])
            return fail(transaction, error)
        }
        // The storefront the device last saw stands for the one the transaction started in: a change the app has
        // not been told of yet is noticed below, while the transaction is purchasing.
        deliver([(transaction, transaction.snapshot)])
        let payment = transaction.paymentDetails
        if payment.requestData != nil {
            return fail(transaction, SKError(.unauthorizedRequestData, userInfo: [
                NSLocalizedDescriptionKey: "Apps may not set requestData on a payment. Remove it, or pass app data in applicationUsername.",
            ]))
        }
        do throws(StoreError) {
            let account = try await environment.connection.account(environment.accountID)
            noteAccount(account)
            if let newStorefront = await noticeStorefront(account.storefront, in: environment),
               !(await shouldContinue(transaction, in: newStorefront)) {
                return fail(transaction, SKError(.storeProductNotAvailable, userInfo: [
                    NSLocalizedDescriptionKey: "The storefront changed to \(newStorefront.countryCode) during the purchase and the app chose not to continue it.",
                ]))
            }
            let record = try await environment.connection.purchase(PurchaseRequest(
                productID: payment.productIdentifier, accountID: environment.accountID, bundleID: environment.bundleID,
                quantity: payment.quantity, deviceID: environment.deviceID,
                applicationUsername: payment.applicationUsername,
                appAccountToken: payment.applicationUsername.flatMap(UUID.init(uuidString:)),
                simulatesAskToBuy: payment.simulatesAskToBuyInSandbox,
                offer: payment.paymentDiscount.map { discount in
                    .promotional(
                        offerID: discount.identifier, keyID: discount.keyIdentifier, nonce: discount.nonce,
                        timestamp: discount.timestamp, signature: discount.signature
                    )
                }
            ))
            transaction.recordID.withLock { $0 = record.id }
            state.withLock { $0.known[record.id] = transaction }
            var snapshot = await self.snapshot(for: record, in: environment)
            attachDownloads(&snapshot, to: transaction)
            if record.state == .purchased { await receiptMayHaveChanged(in: environment) }
            deliver([(transaction, snapshot)])
        } catch {
            fail(transaction, SKError(error, purchase: true))
        }
    }

    private func fail(_ transaction: SKPaymentTransaction, _ error: SKError) {
        deliver([(transaction, SKPaymentTransaction.Snapshot(state: .failed, error: error))])
    }

    /// Records a finish with the store, then tells observers the transaction left the queue.
    func commitFinish(_ transaction: SKPaymentTransaction) async {
        if let recordID = transaction.recordID.current, let environment = try? environment() {
            if transaction.sentSnapshot.storeState == .interrupted {
                DeviceStateStore.forAppDirectory(environment.appDirectory).update { _ = $0.finishedInterruptions.insert(recordID) }
            } else {
                try? await environment.connection.finish(transactionID: recordID, deviceID: environment.deviceID)
            }
            state.withLock { state in
                if state.known[recordID] === transaction { state.known[recordID] = nil }
            }
        }
        var snapshot = transaction.snapshot
        let downloads = snapshot.downloads
        snapshot.downloads = []
        transaction.apply(snapshot)
        if !downloads.isEmpty { cancel(downloads) }
        tellObservers { $0.paymentQueue(self, removedTransactions: [transaction]) }
    }

    // MARK: Restore

    func restore() async {
        do throws(SKError) {
            let environment = try storeEnvironment()
            let records: [TransactionRecord]
            do throws(StoreError) {
                records = try await environment.connection.restoreCompletedTransactions(
                    accountID: environment.accountID, bundleID: environment.bundleID, deviceID: environment.deviceID
                )
            } catch {
                throw SKError(error)
            }
            var updates: [(SKPaymentTransaction, SKPaymentTransaction.Snapshot)] = []
            for record in records {
                let transaction = SKPaymentTransaction(payment: paymentDetails(of: record), snapshot: .init(state: .purchasing), recordID: record.id)
                var snapshot = await snapshot(for: record, in: environment)
                attachDownloads(&snapshot, to: transaction)
                state.withLock { $0.known[record.id] = transaction }
                updates.append((transaction, snapshot))
            }
            await receiptMayHaveChanged(in: environment)
            if !updates.isEmpty { deliver(updates) }
            tellObservers { $0.paymentQueueRestoreCompletedTransactionsFinished(self) }
        } catch {
            tellObservers { $0.paymentQueue(self, restoreCompletedTransactionsFailedWithError: error) }
        }
    }

    // MARK: Synchronization

    /// Brings the queue up to date with the store: the device's unfinished transactions (new ones, changed
    /// states, ones that disappeared), the storefront, refunds and promoted purchases.
    ///
    /// When all that changed since the last look is transactions that the queue already shows as they are (its own
    /// purchases, coming back as the store's change signal) or that are not for this device's app and account, it
    /// does nothing: each transaction reaches the observers once, from one source.
    func synchronize() async {
        let pending = state.withLock { state -> PendingSynchronization? in
            defer { state.pendingSynchronization = nil }
            return state.pendingSynchronization
        }
        guard !observers.isEmpty, let environment = try? environment() else { return }
        if case .transactions(let records) = pending, records.allSatisfy({ isShown($0, in: environment) }) { return }
        do {
            let account = try await environment.connection.account(environment.accountID)
            noteAccount(account)
            try await baselineRevocationsIfNeeded(in: environment)
            _ = await noticeStorefront(account.storefront, in: environment)
            try await synchronizeTransactions(in: environment)
            try await announceRevocations(in: environment)
            try await offerPurchaseIntents(in: environment)
            try await askAboutPriceConsents(in: environment)
        } catch {
            // The store is unreachable or refused; the next change or launch tries again.
        }
    }

    /// Whether the queue already shows a changed transaction as it is, or the transaction is none of its business.
    private func isShown(_ record: TransactionRecord, in environment: StoreEnvironment) -> Bool {
        guard record.accountID == environment.accountID, record.bundleID == environment.bundleID,
              record.deviceID == nil || record.deviceID == environment.deviceID else { return true }
        return state.withLock { $0.delivered[record.id] == record.state }
    }

    private func synchronizeTransactions(in environment: StoreEnvironment) async throws(StoreError) {
        let records = try await environment.connection.unfinishedTransactions(
            accountID: environment.accountID, bundleID: environment.bundleID, deviceID: environment.deviceID
        )
        let deviceState = DeviceStateStore.forAppDirectory(environment.appDirectory)
        let finishedInterruptions = deviceState.current.finishedInterruptions
        var updates: [(SKPaymentTransaction, SKPaymentTransaction.Snapshot)] = []
        var present = Set<UInt64>()
        for record in records {
            present.insert(record.id)
            if record.state == .interrupted, finishedInterruptions.contains(record.id) { continue }
            var snapshot = await snapshot(for: record, in: environment)
            let known = state.withLock { $0.known[record.id] }
            if let known, !known.isFinished.current {
                let current = known.sentSnapshot
                guard current.state != snapshot.state || current.storeState != snapshot.storeState else { continue }
                attachDownloads(&snapshot, to: known)
                updates.append((known, snapshot))
            } else if let known, known.sentSnapshot.storeState == record.state {
                continue // finished by the app; the store hears of it in a job that follows
            } else {
                let transaction = SKPaymentTransaction(payment: paymentDetails(of: record), snapshot: .init(state: .purchasing), recordID: record.id)
                attachDownloads(&snapshot, to: transaction)
                state.withLock { $0.known[record.id] = transaction }
                updates.append((transaction, snapshot))
            }
        }
        deviceState.update { state in
            state.finishedInterruptions = state.finishedInterruptions.filter { id in
                records.contains { $0.id == id && $0.state == .interrupted }
            }
        }
        let removed = state.withLock { state -> [SKPaymentTransaction] in
            let gone = state.known.filter { !present.contains($0.key) && !$0.value.isFinished.current }
            for id in gone.keys { state.known[id] = nil }
            state.transactions.removeAll { transaction in gone.values.contains { $0 === transaction } }
            return Array(gone.values)
        }
        if updates.contains(where: { $0.1.state == .purchased || $0.1.state == .restored }) {
            await receiptMayHaveChanged(in: environment)
        }
        if !updates.isEmpty { deliver(updates) }
        if !removed.isEmpty {
            tellObservers { $0.paymentQueue(self, removedTransactions: removed) }
        }
    }

    /// How a store transaction looks in the queue.
    func snapshot(for record: TransactionRecord, in environment: StoreEnvironment) async -> SKPaymentTransaction.Snapshot {
        var snapshot = SKPaymentTransaction.Snapshot(state: .purchasing, storeState: record.state)
        switch record.state {
        case .purchased:
            snapshot.identifier = String(record.id)
            snapshot.date = record.purchaseDate
            if record.origin == .restore {
                snapshot.state = .restored
                let originalID = record.restoredTransactionID ?? record.originalID
                snapshot.original = SKPaymentTransaction(
                    payment: paymentDetails(of: record),
                    snapshot: .init(
                        state: .purchased, identifier: String(originalID),
                        date: record.restoredPurchaseDate ?? record.originalPurchaseDate
                    ),
                    recordID: originalID
                )
            } else {
                snapshot.state = .purchased
            }
            snapshot.hostedContent = try? await environment.connection.hostedContent(productID: record.productID)
        case .pendingApproval:
            snapshot.state = .deferred
        case .declined:
            snapshot.state = .failed
            snapshot.error = SKError(.paymentCancelled, userInfo: [NSLocalizedDescriptionKey: "The Ask to Buy request was declined."])
        case .interrupted:
            snapshot.state = .failed
            snapshot.error = SKError(.unknown, userInfo: [
                NSLocalizedDescriptionKey: "The purchase was interrupted: the customer must resolve an issue outside the app. It completes as a new purchased transaction once resolved.",
            ])
        case .failed(let code):
            snapshot.state = .failed
            snapshot.error = SKError(SKError.Code(rawValue: code) ?? .unknown)
        }
        return snapshot
    }

    func paymentDetails(of record: TransactionRecord) -> SKPayment.Details {
        SKPayment.Details(productIdentifier: record.productID, quantity: record.quantity, applicationUsername: record.applicationUsername)
    }

    /// Gives a purchased or restored transaction its downloads, keeping those it already has.
    func attachDownloads(_ snapshot: inout SKPaymentTransaction.Snapshot, to transaction: SKPaymentTransaction) {
        guard let content = snapshot.hostedContent, snapshot.state == .purchased || snapshot.state == .restored else { return }
        let existing = transaction.snapshot.downloads
        snapshot.downloads = existing.isEmpty ? [SKDownload(content: content, transaction: transaction)] : existing
    }

    // MARK: Storefront

    /// Records the storefront the account is in; when it differs from the one the device saw, tells the
    /// observers and returns the new storefront.
    func noticeStorefront(_ code: String, in environment: StoreEnvironment) async -> SKStorefront? {
        let previous = DeviceStateStore.forAppDirectory(environment.appDirectory).update { state -> String? in
            defer { state.storefront = code }
            return state.storefront
        }
        guard let previous, previous != code, let storefront = Self.storefront(named: code) else { return nil }
        tellObservers { $0.paymentQueueDidChangeStorefront(self) }
        return storefront
    }

    private func shouldContinue(_ transaction: SKPaymentTransaction, in storefront: SKStorefront) async -> Bool {
        await onCallbackQueue {
            self.delegate?.paymentQueue(self, shouldContinue: transaction, in: storefront) ?? true
        }
    }

    // MARK: Refunds

    /// The revoked non-consumables and subscriptions of the device's account in its app.
    private func revokedTransactions(in environment: StoreEnvironment) async throws(StoreError) -> [TransactionRecord] {
        try await environment.connection.transactions(TransactionQuery(accountID: environment.accountID, bundleID: environment.bundleID))
            .filter { $0.isRevoked && ($0.productType == .nonConsumable || $0.productType == .autoRenewable) }
    }

    /// On the device's first look, records the refunds that predate it, so that only later ones are announced.
    /// It runs before that first synchronization delivers anything, so a revocation of a transaction the app has
    /// already been given is never mistaken for an old one.
    private func baselineRevocationsIfNeeded(in environment: StoreEnvironment) async throws(StoreError) {
        let deviceState = DeviceStateStore.forAppDirectory(environment.appDirectory)
        guard !deviceState.update({ $0.revocationsBaselined }) else { return }
        let revoked = try await revokedTransactions(in: environment)
        deviceState.update { state in
            guard !state.revocationsBaselined else { return }
            state.revocationsBaselined = true
            state.announcedRevocations = Set(revoked.map(\.id))
        }
    }

    /// Tells observers about refunds and revocations of non-consumables and subscriptions the device has not
    /// announced yet, after updating the receipt.
    private func announceRevocations(in environment: StoreEnvironment) async throws(StoreError) {
        let revoked = try await revokedTransactions(in: environment)
        let deviceState = DeviceStateStore.forAppDirectory(environment.appDirectory)
        let new = deviceState.update { state in
            revoked.filter { !state.announcedRevocations.contains($0.id) }
        }
        guard !new.isEmpty else { return }
        await updateReceipt(in: environment, afterPurchase: false)
        var productIDs: [String] = []
        for record in new where !productIDs.contains(record.productID) { productIDs.append(record.productID) }
        let announced = productIDs
        tellObservers { $0.paymentQueue(self, didRevokeEntitlementsForProductIdentifiers: announced) }
        deviceState.update { $0.announcedRevocations.formUnion(new.map(\.id)) }
    }

    // MARK: Promoted purchases

    /// Hands each waiting promoted purchase to the observers' `shouldAddStorePayment`, removing it from the
    /// store whatever the answer. `true` from an observer adds the payment; when no observer implements the
    /// method, the purchase is dropped, as StoreKit does.
    private func offerPurchaseIntents(in environment: StoreEnvironment) async throws(StoreError) {
        let intents = try await environment.connection.purchaseIntents(accountID: environment.accountID, bundleID: environment.bundleID)
        guard !intents.isEmpty else { return }
        let products = try await makeProducts(for: Set(intents.map(\.productID)), in: environment)
        for intent in intents {
            try await environment.connection.removePurchaseIntent(intent.id)
            guard let product = products.first(where: { $0.productIdentifier == intent.productID }) else { continue }
            await onCallbackQueue {
                let payment = SKPayment(product: product)
                var accepted = false
                for observer in self.observers {
                    let (answer, unimplemented) = UnimplementedObserverMethods.ranDefault(for: observer) {
                        observer.paymentQueue(self, shouldAddStorePayment: payment, for: product)
                    }
                    if !unimplemented && answer { accepted = true }
                }
                if accepted { self.add(payment) }
            }
        }
    }

    // MARK: Price increases

    /// Asks the delegate's `paymentQueueShouldShowPriceConsent(_:)` once per new price-increase request of the
    /// account's subscriptions in the app: `true` (the default) shows the consent sheet now, `false` defers it until
    /// `showPriceConsentIfNeeded()`. A request the customer answered is forgotten, so a later one is asked again.
    private func askAboutPriceConsents(in environment: StoreEnvironment) async throws(StoreError) {
        let pending = try await environment.connection.subscriptions(accountID: environment.accountID, bundleID: environment.bundleID)
            .filter { $0.priceIncrease == .pending }
        let new = state.withLock { state in
            let pendingIDs = Set(pending.map(\.id))
            state.priceConsents.asked.formIntersection(pendingIDs)
            state.priceConsents.deferred.removeAll { !pendingIDs.contains($0.id) }
            let new = pending.filter { !state.priceConsents.asked.contains($0.id) }
            state.priceConsents.asked.formUnion(new.map(\.id))
            return new
        }
        for subscription in new {
            let show = await onCallbackQueue { self.delegate?.paymentQueueShouldShowPriceConsent(self) ?? true }
            state.withLock { state in
                if show {
                    state.priceConsents.shown.append(subscription.productID)
                } else {
                    state.priceConsents.deferred.append(subscription)
                }
            }
        }
    }

    // MARK: Products

    /// The products among `identifiers`, in the store's locale and the account's currency.
    func makeProducts(for identifiers: Set<String>, in environment: StoreEnvironment) async throws(StoreError) -> [SKProduct] {
        let connection = environment.connection
        let locale = try await connection.settings().locale
        let storefront = try await connection.account(environment.accountID).storefront
        let currency = AppStoreEngine.Storefront.named(storefront)?.currency ?? "USD"
        var products: [SKProduct] = []
        for product in try await connection.products(for: identifiers) {
            let content = try await connection.hostedContent(productID: product.id)
            products.append(SKProduct(product, locale: locale, currency: currency, hostedContent: content))
        }
        return products
    }

    // MARK: Receipt

    /// What became of a receipt update.
    enum ReceiptUpdate: Equatable {
        /// The store's receipt is on the device.
        case written
        /// The account bought nothing in the app yet, so there is no receipt.
        case noPurchases
        /// The store or the file system failed.
        case failed(String)
    }

    /// Writes the app receipt the store issues to the device, once the account bought something in the app
    /// (or a receipt already exists).
    @discardableResult
    func updateReceipt(in environment: StoreEnvironment, afterPurchase: Bool) async -> ReceiptUpdate {
        let url = environment.receiptURL
        do {
            if !afterPurchase, !FileManager.default.fileExists(atPath: url.path) {
                let purchases = try await environment.connection.transactions(TransactionQuery(accountID: environment.accountID, bundleID: environment.bundleID))
                guard purchases.contains(where: { $0.state == .purchased }) else { return .noPurchases }
            }
            let receipt = try await environment.connection.appReceipt(
                accountID: environment.accountID, bundleID: environment.bundleID, deviceID: environment.deviceID
            )
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try receipt.write(to: url, options: .atomic)
            return .written
        } catch {
            return .failed("\(error)")
        }
    }

    // MARK: Callbacks

    /// Hands new states of transactions to the observers on the callback queue, without waiting for it.
    ///
    /// The queue's own bookkeeping — what it has sent, for the synchronizations that follow — is done at once;
    /// the transaction objects take their new states on the callback queue, just before the observers hear of
    /// them, so an observer never sees a state change under it. A busy or blocked callback queue delays the
    /// callbacks, never the store work behind them.
    func deliver(_ updates: [(SKPaymentTransaction, SKPaymentTransaction.Snapshot)]) {
        state.withLock { state in
            for (transaction, snapshot) in updates {
                transaction.noteSent(snapshot)
                if let id = transaction.recordID.current, let storeState = snapshot.storeState { state.delivered[id] = storeState }
            }
        }
        onCallbackQueueLater {
            for (transaction, snapshot) in updates { transaction.apply(snapshot) }
            self.state.withLock { state in
                for (transaction, _) in updates
                where !transaction.isFinished.current && !state.transactions.contains(where: { $0 === transaction }) {
                    state.transactions.append(transaction)
                }
            }
            let transactions = updates.map(\.0)
            for observer in self.observers { observer.paymentQueue(self, updatedTransactions: transactions) }
        }
    }

    /// Calls every observer on the callback queue, without waiting for it.
    func tellObservers(_ call: @escaping @Sendable (any SKPaymentTransactionObserver) -> Void) {
        onCallbackQueueLater {
            for observer in self.observers { call(observer) }
        }
    }

    /// Runs `body` on the callback queue, counted as pending work until it returned.
    func onCallbackQueueLater(_ body: @escaping @Sendable () -> Void) {
        pendingWork.begin()
        callbackQueue.async {
            body()
            self.pendingWork.end()
        }
    }

    /// Runs `body` on the callback queue and waits for its answer: only for questions to the app (whether to
    /// continue a purchase, whether to add a promoted payment), whose answer the store work needs.
    func onCallbackQueue<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            callbackQueue.async { continuation.resume(returning: body()) }
        }
    }
}
