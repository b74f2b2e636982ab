package import AppStoreEngine
public import Dispatch
public import Foundation

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
        /// The store state in which each store transaction was last handed to the observers, finished ones included.
        var delivered: [UInt64: TransactionState] = [:]
        var listener: Task<Void, Never>?
        /// The synchronization waiting to run, if one was asked for.
        var pendingSynchronization: PendingSynchronization?
        /// The customer's account as the last look at the store found it: it answers `canMakePayments()`
        /// and, before the device saw a storefront, `storefront`, without waiting for the store.
        var account: Account?
        /// Changes that may have made the receipt on the device out of date, and how many a written receipt covers.
        var receiptChanges = 0
        var receiptChangesWritten = 0
        /// Whether the app was given the receipt's URL: it may read the file at any time from now on, so the queue
        /// keeps the file current itself.
        var receiptURLHandedOut = false
        /// Price increases the queue asked its delegate about, and what became of them.
        var priceConsents = PriceConsents()
        /// The code a customer types into the offer-code redemption sheet; `nil` closes it.
        var codeRedemptionSheetEntry: String?
    }

    /// The price-increase consent requests a queue has seen, by subscription.
    struct PriceConsents {
        /// The subscriptions whose pending request the delegate was asked about.
        var asked: Set<UInt64> = []
        /// Requests the delegate deferred, waiting for `showPriceConsentIfNeeded()`.
        var deferred: [SubscriptionRecord] = []
        /// The product identifiers of the consent sheets shown, oldest first.
        var shown: [String] = []
    }

    /// What a synchronization waiting to run has to look at.
    enum PendingSynchronization {
        /// Only these transactions changed; if the queue already shows each of them as it is, or none is for this
        /// device's app and account, there is nothing to do.
        case transactions([TransactionRecord])
        /// Everything.
        case everything

        func adding(_ change: StoreChange) -> PendingSynchronization {
            switch (self, change) {
            case (.transactions(let known), .transactions(let more)): .transactions(known + more)
            default: .everything
            }
        }
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
        enqueue { [weak self] in await self?.refreshAccount() }
    }

    /// A queue for the process's store, calling back on the main queue, as StoreKit's `init()` makes. Apps use
    /// ``default()``; test doubles subclass `SKPaymentQueue` and override what they need.
    public required override init() {
        callbackQueue = .main
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

    private static let defaultQueues = SharedInstances()

    /// The process's payment queue: the store the `OPENSTOREKIT_*` variables or an `SKTestSession` name,
    /// callbacks on the main queue. Called on a subclass (a test double), it gives that class's one instance.
    open class func `default`() -> Self {
        defaultQueues.instance(of: self) { self.init() }
    }

    /// Whether the customer may make payments: `false` for a restricted account (parental controls), or when
    /// the process has no store.
    open class func canMakePayments() -> Bool {
        SKPaymentQueue.default().canMakePayments()
    }

    /// Whether the customer of this queue's store may make payments, as the queue last saw the account.
    ///
    /// It never waits for the store: the answer comes from the account as the queue's last look at the store
    /// found it (every synchronization looks), else from what the device remembers of earlier launches, else
    /// `true`, as for every account that parental controls do not restrict.
    public func canMakePayments() -> Bool {
        guard let environment = try? environment() else { return false }
        if let account = state.withLock({ $0.account }) { return account.canMakePayments }
        return DeviceStateStore.forAppDirectory(environment.appDirectory).current.canMakePayments ?? true
    }

    /// Reads the customer's account from the store into the queue's snapshot; the queue's first job.
    func refreshAccount() async {
        guard let environment = try? environment(),
              let account = try? await environment.connection.account(environment.accountID) else { return }
        noteAccount(account)
    }

    /// Keeps `account` as the queue's snapshot of the customer's account. `SKTestSession` calls it when a test
    /// changes the account, so the next `canMakePayments()` answers at once.
    package func noteAccount(_ account: Account) {
        state.withLock { $0.account = account }
        guard let environment = try? environment() else { return }
        DeviceStateStore.forAppDirectory(environment.appDirectory).update { $0.canMakePayments = account.canMakePayments }
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
            state.delivered = [:]
            state.account = nil
            state.listener?.cancel()
            state.listener = nil
            return state.observers.contains { $0.observer != nil }
        }
        enqueue { [weak self] in await self?.refreshAccount() }
        if listening {
            recordStorefrontIfUnknown()
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
            let id = ObjectIdentifier(observer)
            pendingWork.begin()
            callbackQueue.async {
                self.observers.first { ObjectIdentifier($0) == id }?.paymentQueue(self, updatedTransactions: existing)
                self.pendingWork.end()
            }
        }
        if first {
            recordStorefrontIfUnknown()
            startListening()
        }
    }

    /// Gives a device that never saw its storefront the one the queue knows of now, so the first change after the
    /// app starts observing is noticed as a change. Waits for nothing: the account snapshot, else the store's
    /// default storefront, which every new account starts in.
    private func recordStorefrontIfUnknown() {
        guard let environment = try? environment() else { return }
        let code = state.withLock { $0.account?.storefront } ?? environment.defaultStorefront
        DeviceStateStore.forAppDirectory(environment.appDirectory).update { state in
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
        // The first synchronization is asked for at once, before the subscription: it is the launch's first look.
        requestSynchronization()
        let task = Task { [weak self] in
            let changes = await connection.changes()
            self?.requestSynchronization()
            for await change in changes {
                self?.requestSynchronization(change)
            }
        }
        state.withLock { state in
            state.listener?.cancel()
            state.listener = task
        }
    }

    /// Asks for one synchronization with the store, unless one is already waiting to run; the waiting one then
    /// looks at `change` too.
    func requestSynchronization(_ change: StoreChange = .other) {
        // A subscription's state alone changes nothing in the queue; its transactions arrive as changes of their own.
        if case .subscriptions = change { return }
        let alreadyPending = state.withLock { state -> Bool in
            let pending = state.pendingSynchronization
            switch (pending, change) {
            case (nil, .transactions(let records)): state.pendingSynchronization = .transactions(records)
            case (nil, .other), (nil, .subscriptions): state.pendingSynchronization = .everything
            case (let pending?, _): state.pendingSynchronization = pending.adding(change)
            }
            return pending != nil
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
    /// Finishing a transaction that is still `.purchasing` stops the program with a message, as StoreKit raises
    /// an exception; finishing a `.deferred` transaction, or one transaction twice, does nothing.
    open func finishTransaction(_ transaction: SKPaymentTransaction) {
        precondition(
            transaction.transactionState != .purchasing,
            "Cannot finish a purchasing transaction (\(transaction.payment.productIdentifier)). Finish a transaction once it is purchased, restored or failed."
        )
        guard transaction.transactionState != .deferred else { return }
        let alreadyFinished = transaction.isFinished.withLock { finished -> Bool in
            defer { finished = true }
            return finished
        }
        guard !alreadyFinished else { return }
        state.withLock { $0.transactions.removeAll { $0 === transaction } }
        enqueue { await self.commitFinish(transaction) }
    }

    /// Restores the customer's completed purchases of non-consumables and every paid period of auto-renewable
    /// subscriptions: each comes back as a new `.restored` transaction whose ``SKPaymentTransaction/original`` is
    /// the transaction it replays, then observers get
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

    // MARK: Offer codes

    /// Presents the sheet where the customer redeems a subscription offer code. The redemption happens outside the
    /// app: the code's subscription is bought with the offer, and the transaction reaches the observers as a new
    /// purchased transaction. With no screen to show the sheet on, ``codeRedemptionSheetEntry`` is what the customer
    /// types; `nil` is a customer who closes the sheet.
    open func presentCodeRedemptionSheet() {
        guard let code = state.withLock({ $0.codeRedemptionSheetEntry }) else { return }
        enqueue { [self] in
            guard let environment = try? environment() else { return }
            // A refused code shows its error in the sheet and makes no transaction, as in StoreKit.
            guard (try? await environment.connection.redeemOfferCode(code, accountID: environment.accountID, bundleID: environment.bundleID)) != nil
            else { return }
            // Asked for from inside the job, so the queue is not idle before the redemption reaches the observers.
            requestSynchronization()
        }
    }

    /// The offer code the customer types into the redemption sheet ``presentCodeRedemptionSheet()`` shows: the
    /// reference name of one of the configuration's code offers. An OpenStoreKit addition, for tests and headless
    /// runs; `nil` (the default) is a customer who closes the sheet.
    public var codeRedemptionSheetEntry: String? {
        get { state.withLock { $0.codeRedemptionSheetEntry } }
        set { state.withLock { $0.codeRedemptionSheetEntry = newValue } }
    }

    // MARK: Price increases

    /// Shows the price-consent sheets the delegate deferred with `paymentQueueShouldShowPriceConsent(_:)`, for the
    /// subscriptions whose price increase still waits for the customer's answer.
    open func showPriceConsentIfNeeded() {
        state.withLock { state in
            state.priceConsents.shown += state.priceConsents.deferred.map(\.productID)
            state.priceConsents.deferred = []
        }
    }

    /// The product identifiers of the price-consent sheets the queue has shown, oldest first. An OpenStoreKit
    /// addition: with no screen to show a sheet on, a test reads here whether, and when, the app let it show.
    /// Answer a sheet with `SKTestSession.consentToPriceIncreaseForTransaction(identifier:)` or
    /// `declinePriceIncreaseForTransaction(identifier:)`.
    public var shownPriceConsentSheets: [String] {
        state.withLock { $0.priceConsents.shown }
    }

    // MARK: Downloads
    //
    // Declared here rather than in `SKPaymentQueue+Downloads.swift` so that they are `open`, as in StoreKit: Swift
    // lets a subclass override only the members declared in the class itself, not those of an extension.

    /// Starts downloads of hosted content. Downloads of finished transactions do not start.
    open func start(_ downloads: [SKDownload]) {
        startDownloads(downloads)
    }

    /// Pauses active downloads; resume them with ``resume(_:)``.
    open func pause(_ downloads: [SKDownload]) {
        pauseDownloads(downloads)
    }

    /// Resumes paused downloads.
    open func resume(_ downloads: [SKDownload]) {
        resumeDownloads(downloads)
    }

    /// Cancels downloads and deletes what they copied.
    open func cancel(_ downloads: [SKDownload]) {
        cancelDownloads(downloads)
    }

    // MARK: Storefront and receipt

    /// The customer's storefront, as the device last saw it; before the device's first look, the account's as the
    /// queue knows it, else the store's default storefront. It never waits for the store.
    open var storefront: SKStorefront? {
        guard let environment = try? environment() else { return nil }
        let code = DeviceStateStore.forAppDirectory(environment.appDirectory).current.storefront
            ?? state.withLock { $0.account?.storefront } ?? environment.defaultStorefront
        return Self.storefront(named: code)
    }

    static func storefront(named code: String) -> SKStorefront? {
        AppStoreEngine.Storefront.named(code).map { SKStorefront(countryCode: $0.countryCode, identifier: $0.id) }
    }

    /// The app receipt's file on this device — what `Bundle.main.appStoreReceiptURL` gives on Apple platforms,
    /// which Foundation on Linux cannot provide. As on iOS, the URL is there from launch whenever the process has a
    /// store; the file appears with the first purchase (or a restore or `SKReceiptRefreshRequest` that finds one).
    /// `nil` only when the process has no store.
    ///
    /// The receipt is signed when the app first asks for the URL, not on every purchase while nobody reads it. Once
    /// the app has the URL, it may read the file whenever it likes, so the queue writes the file anew whenever
    /// purchases, restores or refunds change what it lists, before observers hear of the change.
    ///
    /// ```swift
    /// #if canImport(StoreKit)
    /// let receiptURL = Bundle.main.appStoreReceiptURL
    /// #else
    /// let receiptURL = SKPaymentQueue.default().appStoreReceiptURL
    /// #endif
    /// ```
    public var appStoreReceiptURL: URL? {
        guard let environment = try? environment() else { return nil }
        let (changes, written) = state.withLock { state in
            state.receiptURLHandedOut = true
            return (state.receiptChanges, state.receiptChangesWritten)
        }
        if changes > written {
            let update = BlockingBridge.wait { () async -> ReceiptUpdate in await self.updateReceipt(in: environment, afterPurchase: false) }
            if update == .written || update == .noPurchases {
                state.withLock { $0.receiptChangesWritten = max($0.receiptChangesWritten, changes) }
            }
        }
        return environment.receiptURL
    }

    /// Whether the receipt file exists, without writing it: `appStoreReceiptURL` now names the file before it exists.
    var receiptFileExists: Bool {
        guard let environment = try? environment() else { return false }
        return FileManager.default.fileExists(atPath: environment.receiptURL.path)
    }

    /// Notes that the receipt may no longer list what the store has. When the app holds the receipt's URL, the
    /// receipt is written now, before the caller tells observers; otherwise the next ``appStoreReceiptURL`` writes it.
    func receiptMayHaveChanged(in environment: StoreEnvironment) async {
        let (handedOut, changes) = state.withLock { state in
            state.receiptChanges += 1
            return (state.receiptURLHandedOut, state.receiptChanges)
        }
        guard handedOut else { return }
        let update = await updateReceipt(in: environment, afterPurchase: false)
        if update == .written || update == .noPurchases {
            state.withLock { $0.receiptChangesWritten = max($0.receiptChangesWritten, changes) }
        }
    }
}
