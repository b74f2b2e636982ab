public import AppStoreEngine
import AppStoreHosting
public import Foundation
public import OpenStoreKit
import StoreKitConfiguration
import AppStoreFormats
@preconcurrency import Crypto

/// A test environment for in-app purchases: a store that sells a `.storekit` configuration's products, with
/// the switches and controls of Xcode's StoreKit Testing.
///
/// Each session owns its store: in-memory storage, a fresh device and account, and a directory for the
/// device's state that is deleted with the session. Sessions never see each other's purchases.
///
/// - A session of scope ``Scope/process`` (the default, as with Apple's `SKTestSession`) makes
///   `SKPaymentQueue.default()` and requests made without a queue use its store. Tests that rely on that
///   share one process-wide queue, so put them in a `.serialized` suite.
/// - A session of scope ``Scope/isolated`` leaves the default queue alone; use its ``paymentQueue`` (and pass
///   it to `SKProductsRequest(productIdentifiers:paymentQueue:)`). Such tests can run in parallel.
///
/// ```swift
/// let session = try SKTestSession(contentsOf: url, scope: .isolated)
/// session.disableDialogs = true
/// session.paymentQueue.add(observer)
/// session.paymentQueue.add(SKPayment(product: product))
/// ```
///
/// Properties and controls act on the store before they return.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type.
open class SKTestSession: NSObject, @unchecked Sendable {
    /// Which payment queues a session's store serves.
    public enum Scope: Sendable, Hashable {
        /// `SKPaymentQueue.default()` and the process's requests use the session's store, like Apple's
        /// single test environment.
        case process
        /// Only the session's ``paymentQueue`` uses its store.
        case isolated
    }

    /// How a session's payment queues reach its store. An OpenStoreKit addition.
    ///
    /// By default (``inProcess``) they call the store's engine directly. A transport may put something between the
    /// queue and the store: OpenStoreKit's own suite serves each session's store on a loopback `storekit` server
    /// and connects the queue with `HTTPStoreConnection`, so every device call crosses the wire protocol; a test
    /// can also wrap the connection to change what the store answers.
    public struct Transport: Sendable {
        private let connect: @Sendable (InProcessConnection) -> any StoreConnection

        /// A transport that turns the in-process connection to the session's store into the connection the
        /// session's queues use.
        public init(_ connect: @escaping @Sendable (InProcessConnection) -> any StoreConnection) {
            self.connect = connect
        }

        /// The queues call the store's engine in this process.
        public static let inProcess = Transport { $0 }

        /// The connection the queues use for a store reached in-process through `connection`.
        public func connection(to connection: InProcessConnection) -> any StoreConnection {
            connect(connection)
        }
    }

    /// The store engine behind the session, for controls StoreKit Test does not have.
    public let engine: StoreEngine
    /// The in-process connection to the session's store; the queues use it, or what the session's ``Transport``
    /// made of it (``environment``'s `connection`).
    public let connection: InProcessConnection
    /// The app, device and account the session's queues act as.
    public let environment: StoreEnvironment
    /// The payment queue that uses the session's store: `SKPaymentQueue.default()` for a process session, a
    /// queue of its own for an isolated one.
    public let paymentQueue: SKPaymentQueue
    /// The session's scope.
    public let scope: Scope

    let configuration: StoreKitConfigurationFile
    private let ownedDirectory: URL
    /// The failures set with `setSimulatedError(_:forAPI:)`, as the test gave them.
    let simulatedErrors = Locked<[StoreKitDevice.FailableAPI: any SKTestFailure]>([:])
    /// Signs the promotional offers of `buyProduct(identifier:options:)`; the store learns its key on first use.
    let offerSigningKey = P256.Signing.PrivateKey()

    /// A session for the `.storekit` file at `fileURL`.
    ///
    /// - Parameters:
    ///   - fileURL: The `.storekit` file.
    ///   - scope: Whether the session serves `SKPaymentQueue.default()` (`.process`) or only its own queue.
    ///   - hostedContentDirectory: A folder of hosted content packages (`<product ID>/`) for `SKDownload`.
    ///   - bundleID: The app's bundle identifier; by default the process's (see `StoreEnvironment.resolveBundleID`).
    ///   - includesConsumableInAppPurchaseHistory: The app's `SKIncludeConsumableInAppPurchaseHistory` Info.plist
    ///     key: whether `Transaction.all` and `Transaction.latest(for:)` keep consumables the app finished. By default
    ///     the process's Info.plist (see `StoreEnvironment.infoPlistIncludesConsumableInAppPurchaseHistory`).
    ///   - clock: The store's clock; the system clock by default.
    ///   - transport: How the session's queues reach the store; in-process by default.
    /// - Throws: ``SKTestError`` `fileNotFound` when the file cannot be read; the configuration's own error
    ///   when it is not a valid `.storekit` file.
    public init(
        contentsOf fileURL: URL, scope: Scope = .process, hostedContentDirectory: URL? = nil,
        bundleID: String = StoreEnvironment.resolveBundleID(),
        includesConsumableInAppPurchaseHistory: Bool = StoreEnvironment.infoPlistIncludesConsumableInAppPurchaseHistory,
        clock: any StoreClock = SystemClock(),
        transport: Transport = .inProcess
    ) throws {
        guard FileManager.default.isReadableFile(atPath: fileURL.path) else {
            throw SKTestError(.fileNotFound, message: "No readable StoreKit configuration at \(fileURL.path).")
        }
        configuration = try StoreKitConfigurationFile.load(contentsOf: fileURL)
        engine = try StoreFactory.open(StoreSpecification(location: .memory, configuration: configuration, clock: clock))
        connection = InProcessConnection(engine: engine, hostedContentDirectory: hostedContentDirectory)
        ownedDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("OpenStoreKitTest-\(UUID().uuidString)", isDirectory: true)
        environment = StoreEnvironment(
            connection: transport.connection(to: connection), bundleID: bundleID, deviceID: UUID(), appDirectory: ownedDirectory,
            defaultStorefront: StoreSettings(configuration: configuration).storefront,
            includesConsumableInAppPurchaseHistory: includesConsumableInAppPurchaseHistory
        )
        self.scope = scope
        switch scope {
        case .process:
            paymentQueue = SKPaymentQueue.default()
            paymentQueue.rebind(to: environment)
        case .isolated:
            paymentQueue = SKPaymentQueue(environment: environment)
        }
        super.init()
        applyConfiguredSimulatedErrors()
    }

    /// A session for the configuration file `<filename>.storekit`, looked up in the process's bundles and their
    /// resource bundles, then in the current directory.
    ///
    /// - Throws: ``SKTestError`` `fileNotFound` when no such file exists.
    public convenience init(configurationFileNamed filename: String, scope: Scope = .process) throws {
        guard let url = Self.configurationFile(named: filename) else {
            throw SKTestError(.fileNotFound, message: "No \(filename).storekit in the app's or test's bundles or in \(FileManager.default.currentDirectoryPath). Add it to the target's resources, or use init(contentsOf:).")
        }
        try self.init(contentsOf: url, scope: scope)
    }

    /// A session for the `.storekit` file at `fileURL`, serving `SKPaymentQueue.default()`: Apple's
    /// `init(contentsOf:)`, with exactly its shape, so that `SKTestSession.init(contentsOf:)` names it too.
    ///
    /// - Throws: ``SKTestError`` `fileNotFound` when the file cannot be read; the configuration's own error
    ///   when it is not a valid `.storekit` file.
    public convenience init(contentsOf fileURL: URL) throws {
        try self.init(contentsOf: fileURL, scope: .process)
    }

    /// A session for the configuration file `<filename>.storekit`, serving `SKPaymentQueue.default()`: Apple's
    /// `init(configurationFileNamed:)`, with exactly its shape, so that `SKTestSession.init(configurationFileNamed:)`
    /// names it too.
    ///
    /// - Throws: ``SKTestError`` `fileNotFound` when no such file exists.
    public convenience init(configurationFileNamed filename: String) throws {
        try self.init(configurationFileNamed: filename, scope: .process)
    }

    deinit {
        StoreKitDevice.forget(environment)
        try? FileManager.default.removeItem(at: ownedDirectory)
    }

    static func configurationFile(named filename: String) -> URL? {
        let name = filename.hasSuffix(".storekit") ? String(filename.dropLast(".storekit".count)) : filename
        var bundles = [Bundle.main] + Bundle.allBundles
        let besideExecutable = Bundle.main.bundleURL
        if let siblings = try? FileManager.default.contentsOfDirectory(at: besideExecutable, includingPropertiesForKeys: nil) {
            bundles += siblings.filter { $0.pathExtension == "resources" || $0.pathExtension == "bundle" }.compactMap(Bundle.init(url:))
        }
        for bundle in bundles {
            if let url = bundle.url(forResource: name, withExtension: "storekit") { return url }
        }
        let local = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("\(name).storekit")
        return FileManager.default.fileExists(atPath: local.path) ? local : nil
    }

    // MARK: Environment

    /// Drops every override and goes back to the configuration file's settings, storefront included.
    /// Transactions are kept.
    open func resetToDefaultState() {
        let defaults = StoreSettings(configuration: configuration)
        changeSettings { $0 = defaults }
        setStorefront(defaults.storefront)
        applyConfiguredSimulatedErrors()
    }

    /// The storefront (ISO 3166-1 alpha-3, e.g. `USA`) the customer buys in. Setting it moves the customer
    /// to that storefront: observers get `paymentQueueDidChangeStorefront(_:)`. Unknown codes are ignored.
    open var storefront: String {
        get { (try? wait { [engine, environment] () async throws(StoreError) -> String in try await engine.account(environment.accountID).storefront }) ?? "USA" }
        set { setStorefront(newValue) }
    }

    /// The locale product names, descriptions and price formats follow; default `en_US`.
    open var locale: Locale {
        get { Locale(identifier: settings.locale) }
        set { changeSettings { $0.locale = newValue.identifier } }
    }

    /// Whether purchase confirmation dialogs are suppressed. The store shows none, so this only records the
    /// setting.
    open var disableDialogs: Bool {
        get { settings.disableDialogs }
        set { changeSettings { $0.disableDialogs = newValue } }
    }

    /// How fast subscription time runs.
    open var timeRate: TimeRate {
        get { TimeRate(settings.timeRate) }
        set { changeSettings { $0.timeRate = newValue.engineRate } }
    }

    /// Ask to Buy: purchases are `.deferred` until ``approveAskToBuyTransaction(identifier:)`` or
    /// ``declineAskToBuyTransaction(identifier:)``.
    open var askToBuyEnabled: Bool {
        get { settings.askToBuyEnabled }
        set { changeSettings { $0.askToBuyEnabled = newValue } }
    }

    /// Interrupted purchases: purchases fail until ``resolveIssueForTransaction(identifier:)``, which delivers
    /// them as purchased.
    open var interruptedPurchasesEnabled: Bool {
        get { settings.interruptedPurchasesEnabled }
        set { changeSettings { $0.interruptedPurchasesEnabled = newValue } }
    }

    /// Every purchase fails with ``failureError``.
    open var failTransactionsEnabled: Bool {
        get { settings.failTransactionsEnabled }
        set { changeSettings { $0.failTransactionsEnabled = newValue } }
    }

    /// The error failed purchases report while ``failTransactionsEnabled`` is on.
    open var failureError: SKError.Code {
        get { SKError.Code(rawValue: settings.failureErrorCode) ?? .unknown }
        set { changeSettings { $0.failureErrorCode = newValue.rawValue } }
    }

    /// Subscription renewals fail to bill: at a period's end the subscription enters billing retry instead of
    /// renewing, until ``resolveIssueForTransaction(identifier:)`` recovers it or the retry period (60 days, shortened
    /// by ``timeRate``) ends and it expires.
    open var shouldEnterBillingRetryOnRenewal: Bool {
        get { settings.renewalBillingIssuesEnabled }
        set { changeSettings { $0.renewalBillingIssuesEnabled = newValue } }
    }

    /// Billing retry starts with a grace period (16 days, 6 for weekly subscriptions, shortened by ``timeRate``) in
    /// which the customer keeps the service. No effect unless ``shouldEnterBillingRetryOnRenewal`` is on.
    open var billingGracePeriodIsEnabled: Bool {
        get { settings.billingGracePeriodEnabled }
        set { changeSettings { $0.billingGracePeriodEnabled = newValue } }
    }

    /// Whether the customer may make payments; `false` makes a restricted account, for which
    /// `SKPaymentQueue.canMakePayments()` is `false` and purchases fail with `paymentNotAllowed`.
    /// An OpenStoreKit addition: StoreKit Test has no such switch.
    open var canMakePayments: Bool {
        get { (try? wait { [engine, environment] () async throws(StoreError) -> Bool in try await engine.account(environment.accountID).canMakePayments }) ?? true }
        set {
            _ = try? wait { [engine, environment] () async throws(StoreError) in
                var account = try await engine.account(environment.accountID)
                account.canMakePayments = newValue
                try await engine.saveAccount(account)
            }
            syncQueueAccount()
        }
    }

    // MARK: Transactions

    /// Every transaction of the store, oldest first: failed ones, pending Ask to Buy requests and consumables
    /// included.
    open func allTransactions() -> [SKTestTransaction] {
        let (records, subscriptions) = (try? wait { [engine] () async throws(StoreError) -> ([TransactionRecord], [UInt64: SubscriptionRecord]) in
            let records = try await engine.transactions()
            var subscriptions: [UInt64: SubscriptionRecord] = [:]
            for account in Set(records.map(\.accountID)) {
                for subscription in try await engine.subscriptions(accountID: account) { subscriptions[subscription.id] = subscription }
            }
            return (records, subscriptions)
        }) ?? ([], [:])
        return records.map { SKTestTransaction($0, subscription: subscriptions[$0.originalID]) }
    }

    /// Deletes a transaction and the restores and repurchases derived from it, as if they never happened.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`.
    open func deleteTransaction(identifier: Int) throws {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.deleteTransaction(id) }
    }

    /// Deletes every transaction: the customer has bought nothing.
    open func clearTransactions() {
        _ = try? wait { [engine] () async throws(StoreError) in try await engine.clearTransactions() }
    }

    /// Approves a pending Ask to Buy request: the deferred transaction becomes purchased.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`, or `invalidAction` when the transaction is not pending.
    open func approveAskToBuyTransaction(identifier: Int) throws {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.approveAskToBuy(transactionID: id) }
    }

    /// Declines a pending Ask to Buy request: the deferred transaction fails.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`, or `invalidAction` when the transaction is not pending.
    open func declineAskToBuyTransaction(identifier: Int) throws {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.declineAskToBuy(transactionID: id) }
    }

    /// Resolves a billing issue: an interrupted purchase is delivered again as purchased; a subscription in billing
    /// retry (`identifier` is any of its transactions) recovers and renews, and the renewal reaches the app's
    /// observers.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`, or `invalidAction` when the purchase has no issue, or the
    ///   subscription's billing retry already ended.
    open func resolveIssueForTransaction(identifier: Int) throws {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.resolveIssue(transactionID: id) }
    }

    /// Refunds a transaction, as an approved refund request does: the receipt is updated and observers get
    /// `paymentQueue(_:didRevokeEntitlementsForProductIdentifiers:)` for non-consumables.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`, or `invalidAction` when it cannot be refunded.
    open func refundTransaction(identifier: Int) throws {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.refund(transactionID: id) }
    }

    // MARK: Refund requests

    /// Refund requests wait for a decision, as App Store review runs them: `Transaction.beginRefundRequest` leaves the
    /// transaction as it is, the app's server hears `CONSUMPTION_REQUEST`, and the test decides with
    /// ``refundRequestForTransaction(identifier:revocationPercentage:)`` or
    /// ``declineRefundRequestForTransaction(identifier:)``. Off (the default), requests are decided at once.
    /// An OpenStoreKit addition: StoreKit Test has no such switch.
    open var refundRequestsAwaitDecision: Bool {
        get { settings.refundRequestsAwaitDecision }
        set { changeSettings { $0.refundRequestsAwaitDecision = newValue } }
    }

    /// Refunds a transaction whose refund request waits: in full (`REFUND_FULL`), or prorated with
    /// `revocationPercentage` in milli-percent (`REFUND_PRORATED`; 50000 is 50%). The app sees the transaction revoked.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`, or `invalidAction` when no request waits or the percentage is
    ///   outside 1…100000.
    open func refundRequestForTransaction(identifier: Int, revocationPercentage: Int? = nil) throws {
        let id = try storeID(identifier)
        let decision: RefundDecision = revocationPercentage.map { .refundProrated(percentage: $0) } ?? .refundFull
        _ = try control { [engine] () async throws(StoreError) in try await engine.decideRefundRequest(transactionID: id, decision) }
    }

    /// Declines a transaction's waiting refund request: the app's server hears `REFUND_DECLINED`, the purchase stays.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`, or `invalidAction` when no request waits.
    open func declineRefundRequestForTransaction(identifier: Int) throws {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.decideRefundRequest(transactionID: id, .decline) }
    }

    /// Reverses a transaction's refund: it grants its product again and the app's server hears `REFUND_REVERSED`.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`, or `invalidAction` when the transaction was not refunded.
    open func reverseRefundForTransaction(identifier: Int) throws {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.reverseRefund(transactionID: id) }
    }

    // MARK: Subscriptions

    /// Turns on auto-renew of the subscription a transaction belongs to: it renews at the end of its period.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`; `invalidProductType` for a transaction that is not of an
    ///   auto-renewable subscription; `invalidAction` when the subscription is no longer active.
    open func enableAutoRenewForTransaction(identifier: Int) throws {
        try setAutoRenew(identifier, enabled: true)
    }

    /// Turns off auto-renew of the subscription a transaction belongs to: it expires at the end of its period.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`; `invalidProductType` for a transaction that is not of an
    ///   auto-renewable subscription; `invalidAction` when the subscription is no longer active.
    open func disableAutoRenewForTransaction(identifier: Int) throws {
        try setAutoRenew(identifier, enabled: false)
    }

    /// Renews a subscription now: its period ends, a new period starts with a renewal transaction that the app's
    /// queue delivers as purchased, and auto-renew is on.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound` when the account has no subscription to the product.
    open func forceRenewalOfSubscription(productIdentifier: String) throws {
        let id = try subscriptionID(productIdentifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.renewSubscription(id) }
    }

    /// Expires a subscription now: auto-renew goes off and its period ends.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound` when the account has no subscription to the product.
    open func expireSubscription(productIdentifier: String) throws {
        let id = try subscriptionID(productIdentifier)
        _ = try control { [engine] () async throws(StoreError) in try await engine.expireSubscription(id) }
    }

    /// Moves the session's clock forward by `interval` seconds, renewing and expiring subscriptions on the way in
    /// date order. An OpenStoreKit addition: StoreKit Test has no clock a test can move.
    ///
    /// - Throws: ``SKTestError`` `invalidAction` when the session was not made with a `VirtualClock`, or when
    ///   `interval` is negative.
    public func advanceTime(by interval: TimeInterval) async throws {
        guard let clock = engine.clock as? VirtualClock else {
            throw SKTestError(.invalidAction, message: "Only a session made with a VirtualClock can move time: SKTestSession(contentsOf:clock: VirtualClock(start: …)).")
        }
        do {
            try await clock.advance(by: interval)
        } catch {
            throw SKTestError(error)
        }
    }

    /// Buys a product outside the app, as the customer would on another device: the app's queue delivers the
    /// purchased transaction.
    ///
    /// - Throws: ``SKTestError`` `invalidProductIdentifier` when the store does not sell the product.
    open func buyProduct(productIdentifier: String) throws {
        let request = PurchaseRequest(productID: productIdentifier, accountID: environment.accountID, bundleID: environment.bundleID)
        _ = try control { [engine] () async throws(StoreError) in try await engine.purchase(request) }
    }

    /// Starts a promoted in-app purchase, as if the customer tapped the product on the App Store: StoreKit 2's
    /// `PurchaseIntent.intents` yields it (with the win-back offer, if one is given), and the Original API's
    /// observers get `paymentQueue(_:shouldAddStorePayment:for:)`. An OpenStoreKit addition.
    ///
    /// - Parameters:
    ///   - productIdentifier: The product.
    ///   - winBackOfferIdentifier: A win-back offer of the subscription the customer chose on the App Store.
    /// - Throws: ``SKTestError`` `invalidProductIdentifier` when the store does not sell the product, `invalidAction`
    ///   when it has no such win-back offer.
    open func startPromotedPurchase(productIdentifier: String, winBackOfferIdentifier: String? = nil) throws {
        _ = try control { [engine, environment] () async throws(StoreError) in
            try await engine.addPurchaseIntent(
                productID: productIdentifier, accountID: environment.accountID, bundleID: environment.bundleID,
                winBackOfferID: winBackOfferIdentifier
            )
        }
    }

    /// Opens Apple's test URL for promoted purchases,
    /// `itms-services://?action=purchaseIntent&bundleId=…&productIdentifier=…`. An OpenStoreKit addition.
    ///
    /// - Throws: ``SKTestError`` `invalidURL` for another URL or another app's bundle identifier,
    ///   `invalidProductIdentifier` when the store does not sell the product.
    open func startPromotedPurchase(url: URL) throws {
        guard let intent = PurchaseIntentURL(url) else {
            throw SKTestError(.invalidURL, message: "\(url) is not an itms-services://?action=purchaseIntent&bundleId=…&productIdentifier=… URL.")
        }
        guard intent.bundleID == environment.bundleID else {
            throw SKTestError(.invalidURL, message: "The URL is for \(intent.bundleID), but the session's app is \(environment.bundleID).")
        }
        try startPromotedPurchase(productIdentifier: intent.productID)
    }

    // MARK: Helpers

    private var settings: StoreSettings {
        (try? wait { [engine] () async throws(StoreError) in await engine.settings }) ?? StoreSettings()
    }

    private func changeSettings(_ change: @escaping @Sendable (inout StoreSettings) -> Void) {
        _ = try? wait { [engine] () async throws(StoreError) in try await engine.updateSettings(change) }
    }

    private func setStorefront(_ code: String) {
        guard AppStoreEngine.Storefront.named(code) != nil else { return }
        // The account first: an account never saved takes the settings' storefront, so changing the settings first
        // would move it silently, and the store would announce no change to the app.
        _ = try? wait { [engine, environment] () async throws(StoreError) in
            var account = try await engine.account(environment.accountID)
            account.storefront = code.uppercased()
            try await engine.saveAccount(account)
        }
        changeSettings { $0.storefront = code.uppercased() }
        syncQueueAccount()
    }

    /// Hands the account as it is now to the session's queue, whose `canMakePayments()` and `storefront` answer
    /// from it without waiting for the store.
    private func syncQueueAccount() {
        guard let account = try? wait({ [engine, environment] () async throws(StoreError) -> Account in
            try await engine.account(environment.accountID)
        }) else { return }
        paymentQueue.noteAccount(account)
    }

    /// Asks the customer to consent to a price increase of the subscription a transaction belongs to, as the
    /// transaction manager's Request Price Increase Consent does. The app's queue asks its delegate's
    /// `paymentQueueShouldShowPriceConsent(_:)`; the subscription expires at its renewal date unless
    /// ``consentToPriceIncreaseForTransaction(identifier:)`` answers first.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`; `invalidProductType` for a transaction that is not of an
    ///   auto-renewable subscription; `invalidAction` for a subscription that will not renew.
    open func requestPriceIncreaseConsentForTransaction(identifier: Int) throws {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in
            try await engine.requestPriceIncreaseConsent(subscription: try await engine.subscription(forTransaction: id).id)
        }
    }

    /// Consents to the pending price increase: the subscription renews at the new price.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`; `invalidAction` when no price increase waits for an answer.
    open func consentToPriceIncreaseForTransaction(identifier: Int) throws {
        try answerPriceIncrease(identifier, consented: true)
    }

    /// Declines the pending price increase: auto-renew goes off and the subscription expires at the period's end.
    ///
    /// - Throws: ``SKTestError`` `noTransactionFound`; `invalidAction` when no price increase waits for an answer.
    open func declinePriceIncreaseForTransaction(identifier: Int) throws {
        try answerPriceIncrease(identifier, consented: false)
    }

    private func answerPriceIncrease(_ identifier: Int, consented: Bool) throws(SKTestError) {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in
            try await engine.answerPriceIncrease(subscription: try await engine.subscription(forTransaction: id).id, consented: consented)
        }
    }

    private func setAutoRenew(_ identifier: Int, enabled: Bool) throws(SKTestError) {
        let id = try storeID(identifier)
        _ = try control { [engine] () async throws(StoreError) in
            try await engine.setAutoRenew(subscription: try await engine.subscription(forTransaction: id).id, enabled: enabled)
        }
    }

    /// The original transaction of the session account's subscription to a product (current or renewing into it).
    private func subscriptionID(_ productIdentifier: String) throws(SKTestError) -> UInt64 {
        let subscriptions = try control { [engine, environment] () async throws(StoreError) in
            try await engine.subscriptions(accountID: environment.accountID, bundleID: environment.bundleID)
        }
        guard let subscription = subscriptions.first(where: { $0.productID == productIdentifier })
            ?? subscriptions.first(where: { $0.autoRenewProductID == productIdentifier })
        else {
            throw SKTestError(.noTransactionFound, message: "The account has no subscription to \(productIdentifier). Buy it first.")
        }
        return subscription.id
    }

    private func storeID(_ identifier: Int) throws(SKTestError) -> UInt64 {
        guard let id = UInt64(exactly: identifier) else {
            throw SKTestError(.noTransactionFound, message: "\(identifier) is not a transaction identifier.")
        }
        return id
    }

    private func control<T: Sendable>(_ operation: @escaping @Sendable () async throws(StoreError) -> T) throws(SKTestError) -> T {
        do {
            return try wait(operation)
        } catch {
            throw SKTestError(error)
        }
    }

    private func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws(StoreError) -> T) throws(StoreError) -> T {
        try BlockingBridge.wait(operation)
    }
}
