import AppStoreEngine
import Dispatch
import Foundation

/// The queue of payment transactions the App Store processes for the app.
///
/// Add your ``SKPaymentTransactionObserver`` when the app launches, then add payments. The queue talks to the
/// store of its ``StoreEnvironment`` and calls observers and the delegate on its callback queue:
///
/// - `SKPaymentQueue.default()` serves the process: its store comes from `OPENSTOREKIT_CONFIG` and
///   `OPENSTOREKIT_DATA_DIR` (see ``StoreEnvironment/fromProcessEnvironment(_:)``), or from the latest
///   `SKTestSession`, and it calls back on the main queue, as StoreKit does.
/// - `SKPaymentQueue(environment:callbackQueue:)` makes a queue of your own, for example one per test.
///
/// Callbacks go through `DispatchQueue.main` unless you pass another queue, so something must run the main
/// queue: an app's run loop, `dispatchMain()`, an `async` `main`, or `swift test` (whose async entry point
/// drains the main queue on Linux).
///
/// `@unchecked Sendable`: the mutable state is guarded by the locks of `state` and `binding`.
open class SKPaymentQueue: NSObject, @unchecked Sendable {
    /// The queue observers and the delegate are called on.
    public let callbackQueue: DispatchQueue

    let binding: Locked<Binding>
    let state = Locked(QueueState())
    private let jobs: AsyncStream<@Sendable () async -> Void>.Continuation
    let downloadQueue = DispatchQueue(label: "OpenStoreKit.downloads")
    /// The work started and not finished: worker jobs, download steps, callbacks on their way.
    let pendingWork = PendingWork()

    /// Where the queue's store comes from.
    enum Binding {
        /// Not looked up yet: the process environment, on first use.
        case processEnvironment
        /// A resolved environment, or why there is none.
        case resolved(Result<StoreEnvironment, EnvironmentError>)
    }

    struct QueueState {
        var observers: [WeakObserver] = []
        var delegate: WeakDelegate?
        /// The transactions in the queue, in the order they arrived.
        var transactions: [SKPaymentTransaction] = []
        /// The object that stands for each store transaction the queue knows.
        var known: [UInt64: SKPaymentTransaction] = [:]
        var listener: Task<Void, Never>?
        var synchronizationPending = false
    }

    struct WeakObserver {
        weak var observer: (any SKPaymentTransactionObserver)?
    }

    struct WeakDelegate {
        weak var delegate: (any SKPaymentQueueDelegate)?
    }

    /// A queue for `environment`, calling observers and its delegate on `callbackQueue`.
    ///
    /// Use it where ``default()`` is not wanted, for example to give each test its own store; `SKTestSession`
    /// gives out such queues as `paymentQueue`.
    public init(environment: StoreEnvironment, callbackQueue: DispatchQueue = .main) {
        self.callbackQueue = callbackQueue
        binding = Locked(.resolved(.success(environment)))
        jobs = Self.startWorker()
        super.init()
    }

    private init(processEnvironmentWithCallbackQueue callbackQueue: DispatchQueue) {
        self.callbackQueue = callbackQueue
        binding = Locked(.processEnvironment)
        jobs = Self.startWorker()
        super.init()
    }

    deinit {
        jobs.finish()
        state.withLock { $0.listener?.cancel() }
    }

    /// Runs the queue's store work one job at a time, in the order it was asked for.
    private static func startWorker() -> AsyncStream<@Sendable () async -> Void>.Continuation {
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        Task {
            for await job in stream { await job() }
        }
        return continuation
    }

    func enqueue(_ job: @escaping @Sendable () async -> Void) {
        pendingWork.begin()
        let pendingWork = pendingWork
        jobs.yield {
            await job()
            pendingWork.end()
        }
    }

    /// Returns once the queue has delivered everything: the payments, finishes and restores asked for before the
    /// call, every change the store committed before the call (a synchronization reads them), the downloads they
    /// started, and the observers' callbacks for all of it. `OpenStoreKitTest` makes it public for tests.
    package func settle() async {
        requestSynchronization()
        await pendingWork.idle()
    }

    private static let shared = SKPaymentQueue(processEnvironmentWithCallbackQueue: .main)

    /// The process's payment queue.
    open class func `default`() -> Self {
        shared as! Self
    }

    /// Whether the customer may make payments: `false` for a restricted account (parental controls), or when
    /// the process has no store.
    open class func canMakePayments() -> Bool {
        shared.canMakePayments()
    }

    /// Whether the customer of this queue's store may make payments.
    public func canMakePayments() -> Bool {
        guard let environment = try? environment() else { return false }
        let connection = environment.connection, accountID = environment.accountID
        return (try? BlockingBridge.wait { () async throws(StoreError) -> Bool in
            try await connection.account(accountID).canMakePayments
        }) ?? false
    }

    /// The environment the queue works in.
    ///
    /// - Throws: ``EnvironmentError`` when the process environment does not describe a store.
    public func environment() throws(EnvironmentError) -> StoreEnvironment {
        let result = binding.withLock { binding -> Result<StoreEnvironment, EnvironmentError> in
            switch binding {
            case .resolved(let result):
                return result
            case .processEnvironment:
                let result = Result { () throws(EnvironmentError) -> StoreEnvironment in try StoreEnvironment.fromProcessEnvironment() }
                binding = .resolved(result)
                return result
            }
        }
        return try result.get()
    }

    /// The environment, or the StoreKit error a payment or request fails with when there is none.
    func storeEnvironment() throws(SKError) -> StoreEnvironment {
        do {
            return try environment()
        } catch {
            throw SKError(.clientInvalid, userInfo: [NSLocalizedDescriptionKey: error.message])
        }
    }

    /// Points the queue at another environment (what `SKTestSession` does to the default queue). The queue
    /// forgets its transactions, keeps its observers and delegate, and synchronizes with the new store.
    package func rebind(to environment: StoreEnvironment) {
        let listening = state.withLock { state -> Bool in
            binding.withLock { $0 = .resolved(.success(environment)) }
            state.transactions = []
            state.known = [:]
            state.listener?.cancel()
            state.listener = nil
            return state.observers.contains { $0.observer != nil }
        }
        if listening {
            recordStorefrontIfUnknown()
            requestSynchronization()
            startListening()
        }
    }

    // MARK: Delegate and observers

    /// The delegate asked whether transactions continue after a storefront change.
    open weak var delegate: (any SKPaymentQueueDelegate)? {
        get { state.withLock { $0.delegate?.delegate } }
        set { state.withLock { $0.delegate = newValue.map { WeakDelegate(delegate: $0) } } }
    }

    /// The observers currently attached. The queue holds them weakly.
    open var transactionObservers: [any SKPaymentTransactionObserver] {
        state.withLock { $0.observers.compactMap(\.observer) }
    }

    /// Attaches an observer. The first observer makes the queue deliver the device's unfinished transactions,
    /// promoted purchases, refunds and storefront changes, and keep doing so as they happen.
    open func add(_ observer: any SKPaymentTransactionObserver) {
        let (first, existing) = state.withLock { state -> (Bool, [SKPaymentTransaction]) in
            state.observers.removeAll { $0.observer == nil }
            guard !state.observers.contains(where: { $0.observer === observer }) else { return (false, []) }
            state.observers.append(WeakObserver(observer: observer))
            return (state.observers.count == 1, state.transactions)
        }
        if !existing.isEmpty {
            let box = UncheckedBox(observer)
            pendingWork.begin()
            callbackQueue.async {
                box.value.paymentQueue(self, updatedTransactions: existing)
                self.pendingWork.end()
            }
        }
        if first {
            recordStorefrontIfUnknown()
            requestSynchronization()
            startListening()
        }
    }

    /// Gives a device that never saw its storefront the current one, so the first change after the app starts
    /// observing is noticed as a change.
    private func recordStorefrontIfUnknown() {
        guard let environment = try? environment() else { return }
        let store = DeviceStateStore.forAppDirectory(environment.appDirectory)
        guard store.current.storefront == nil else { return }
        let connection = environment.connection, accountID = environment.accountID
        guard let code = try? BlockingBridge.wait({ () async throws(StoreError) -> String in
            try await connection.account(accountID).storefront
        }) else { return }
        store.update { state in
            if state.storefront == nil { state.storefront = code }
        }
    }

    /// Detaches an observer. Without observers the queue stops following the store.
    open func remove(_ observer: any SKPaymentTransactionObserver) {
        state.withLock { state in
            state.observers.removeAll { $0.observer == nil || $0.observer === observer }
            if state.observers.isEmpty {
                state.listener?.cancel()
                state.listener = nil
            }
        }
    }

    var observers: [any SKPaymentTransactionObserver] {
        state.withLock { $0.observers.compactMap(\.observer) }
    }

    private func startListening() {
        guard let connection = (try? environment())?.connection else { return }
        let task = Task { [weak self] in
            let changes = await connection.changes()
            self?.requestSynchronization()
            for await _ in changes {
                self?.requestSynchronization()
            }
        }
        state.withLock { state in
            state.listener?.cancel()
            state.listener = task
        }
    }

    /// Asks for one synchronization with the store, unless one is already waiting to run.
    func requestSynchronization() {
        let alreadyPending = state.withLock { state -> Bool in
            defer { state.synchronizationPending = true }
            return state.synchronizationPending
        }
        guard !alreadyPending else { return }
        enqueue { [weak self] in await self?.synchronize() }
    }

    // MARK: Transactions

    /// The transactions waiting in the queue: purchases in progress and transactions not finished yet.
    open var transactions: [SKPaymentTransaction] {
        state.withLock { $0.transactions }
    }

    /// Adds a payment. The queue copies it, so adding one payment twice buys twice. Observers get the new
    /// transaction as `.purchasing`, then `.purchased`, `.failed` or `.deferred`.
    open func add(_ payment: SKPayment) {
        let transaction = SKPaymentTransaction(payment: payment.details, snapshot: .init(state: .purchasing))
        enqueue { await self.process(transaction) }
    }

    /// Finishes a transaction that is purchased, restored or failed: the device will not hand it over again,
    /// and observers get `paymentQueue(_:removedTransactions:)` once the store recorded it.
    ///
    /// Finishing a transaction that is still `.purchasing` or `.deferred` does nothing (StoreKit raises an
    /// exception); finishing a transaction twice does nothing the second time.
    open func finishTransaction(_ transaction: SKPaymentTransaction) {
        guard transaction.transactionState != .purchasing, transaction.transactionState != .deferred else { return }
        let alreadyFinished = transaction.isFinished.withLock { finished -> Bool in
            defer { finished = true }
            return finished
        }
        guard !alreadyFinished else { return }
        state.withLock { $0.transactions.removeAll { $0 === transaction } }
        enqueue { await self.commitFinish(transaction) }
    }

    /// Restores the customer's completed purchases of non-consumables: each comes back as a new `.restored`
    /// transaction whose ``SKPaymentTransaction/original`` is the purchase, then observers get
    /// `paymentQueueRestoreCompletedTransactionsFinished(_:)` — or, if the store fails,
    /// `paymentQueue(_:restoreCompletedTransactionsFailedWithError:)`. Consumables and non-renewing
    /// subscriptions are never restored.
    open func restoreCompletedTransactions() {
        restoreCompletedTransactions(withApplicationUsername: nil)
    }

    /// Restores completed purchases (see ``restoreCompletedTransactions()``). The username is the one the app
    /// set as the payments' `applicationUsername`; the store uses it for fraud checks only.
    open func restoreCompletedTransactions(withApplicationUsername username: String?) {
        enqueue { await self.restore() }
    }

    // MARK: Storefront and receipt

    /// The customer's storefront, as the device last saw it.
    open var storefront: SKStorefront? {
        guard let environment = try? environment() else { return nil }
        let store = DeviceStateStore.forAppDirectory(environment.appDirectory)
        var code = store.current.storefront
        if code == nil {
            let connection = environment.connection, accountID = environment.accountID
            code = try? BlockingBridge.wait { () async throws(StoreError) -> String in
                try await connection.account(accountID).storefront
            }
        }
        return code.flatMap(Self.storefront(named:))
    }

    static func storefront(named code: String) -> SKStorefront? {
        Storefront.named(code).map { SKStorefront(countryCode: $0.countryCode, identifier: $0.id) }
    }

    /// The app receipt's file on this device — what `Bundle.main.appStoreReceiptURL` gives on Apple platforms,
    /// which Foundation on Linux cannot provide. `nil` until the receipt exists: after the first purchase,
    /// a restore or an `SKReceiptRefreshRequest`.
    ///
    /// ```swift
    /// #if canImport(StoreKit)
    /// let receiptURL = Bundle.main.appStoreReceiptURL
    /// #else
    /// let receiptURL = SKPaymentQueue.default().appStoreReceiptURL
    /// #endif
    /// ```
    public var appStoreReceiptURL: URL? {
        guard let url = (try? environment())?.receiptURL, FileManager.default.fileExists(atPath: url.path) else { return nil }
        return url
    }
}

/// Carries a value that is only used on one queue across a `@Sendable` boundary.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) {
        self.value = value
    }
}
