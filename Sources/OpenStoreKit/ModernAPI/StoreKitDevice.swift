package import AppStoreEngine
import AppStoreFormats
import Foundation

/// The device as StoreKit 2's static API sees it: one app, account and device on one store (a
/// ``StoreEnvironment``), the verifier for the store's signatures, and the errors a test asked this device's
/// API to simulate.
///
/// `Product.products(for:)`, `Transaction.updates` and the rest have no parameter for the store: they use the
/// environment bound to the current task (`SKTestSession.run(_:)`), else the one of `SKPaymentQueue.default()`:
/// the `OPENSTOREKIT_*` variables or the latest `.process` `SKTestSession`. So a purchase made with either API is
/// seen by the other, as on iOS. There is one device object per app directory and account in a process.
package final class StoreKitDevice: Sendable {
    /// The app, account, device and store.
    package let environment: StoreEnvironment
    private let verifier = Locked<Task<JWSVerifier, any Error>?>(nil)
    private let simulatedFailures = Locked<[FailableAPI: SimulatedFailure]>([:])
    /// What the customer does in the sheets StoreKit 2 would show, which have no screen here.
    package let sheets = Locked(SheetAnswers())
    /// The storefront the app last saw through StoreKit 2 (loading products, a purchase): a purchase that finds
    /// another one asks its `onStorefrontChange` option whether to continue.
    let storefrontSeen = Locked<String?>(nil)
    /// How many of this device's update sequences (transactions, statuses, storefronts, purchase intents, messages)
    /// have read where the store stands and wait for changes: a test waits for one before it changes the store.
    package let listeningSequences = Locked(0)

    private init(environment: StoreEnvironment) {
        self.environment = environment
    }

    /// The environment the current task's StoreKit 2 calls use, when one is bound (`SKTestSession.run(_:)`).
    @TaskLocal package static var bound: StoreEnvironment?

    private static let registry = Locked<[String: StoreKitDevice]>([:])

    /// The device of `environment`; one per app directory and account.
    package static func of(_ environment: StoreEnvironment) -> StoreKitDevice {
        let key = registryKey(environment)
        return registry.withLock { devices in
            if let device = devices[key] { return device }
            let device = StoreKitDevice(environment: environment)
            devices[key] = device
            return device
        }
    }

    /// Forgets the device of an app directory that is going away (an `SKTestSession` that ends).
    package static func forget(_ environment: StoreEnvironment) {
        _ = registry.withLock { $0.removeValue(forKey: registryKey(environment)) }
    }

    private static func registryKey(_ environment: StoreEnvironment) -> String {
        environment.appDirectory.standardizedFileURL.path + "\u{1F}" + environment.accountID
    }

    /// The device the current task's StoreKit 2 calls act as.
    ///
    /// - Throws: `StoreKitError.systemError` with the ``EnvironmentError`` when the process has no store.
    package static func current() throws(StoreKitError) -> StoreKitDevice {
        if let bound { return of(bound) }
        do {
            return of(try SKPaymentQueue.default().environment())
        } catch {
            throw .systemError(error)
        }
    }

    /// Runs `deliver` now and again after each change of the store, until the iterating task is cancelled: the
    /// loop of update sequences that look at the store as it is (purchase intents, messages).
    func followChanges(_ deliver: () async -> Void) async {
        let changes = await environment.connection.changes()
        await deliver()
        await listening {
            for await _ in changes { await deliver() }
        }
    }

    /// Counts an update sequence as listening until `body` returns.
    func listening(_ body: () async -> Void) async {
        listeningSequences.withLock { $0 += 1 }
        await body()
        listeningSequences.withLock { $0 -= 1 }
    }

    // MARK: Store calls

    /// Calls the store; a refusal becomes the `StoreKitError` StoreKit 2 throws.
    package func call<Value: Sendable>(_ body: @Sendable (any StoreConnection) async throws(StoreError) -> Value) async throws(StoreKitError) -> Value {
        do {
            return try await body(environment.connection)
        } catch {
            throw StoreKitError(error)
        }
    }

    /// The account's transactions in the app as StoreKit 2 shows them: completed, not restores (a restore is the
    /// Original API's copy of an earlier purchase), oldest first.
    package func transactionRecords() async throws(StoreKitError) -> [TransactionRecord] {
        let query = TransactionQuery(accountID: environment.accountID, bundleID: environment.bundleID)
        return try await call { connection throws(StoreError) in try await connection.transactions(query) }
            .filter(Self.isShown)
    }

    /// Whether StoreKit 2 shows a transaction at all: completed, and not the Original API's restore copy.
    static func isShown(_ record: TransactionRecord) -> Bool {
        record.state.isCompleted && record.origin != .restore
    }

    // MARK: Signing and verification

    /// Transactions signed for this device and verified, in the order of `records`.
    package func verifiedTransactions(_ records: [TransactionRecord]) async throws(StoreKitError) -> [VerificationResult<Transaction>] {
        guard !records.isEmpty else { return [] }
        let ids = records.map(\.id)
        let deviceID = environment.deviceID
        let tokens = try await call { connection throws(StoreError) in try await connection.signedTransactions(ids, deviceID: deviceID) }
        var results: [VerificationResult<Transaction>] = []
        for token in tokens {
            if let result = await verifyTransaction(token) { results.append(result) }
        }
        return results
    }

    /// Verifies a signed transaction; `nil` when the token does not even decode to a transaction.
    package func verifyTransaction(_ token: String) async -> VerificationResult<Transaction>? {
        await verify(token, decode: Transaction.init(token:), check: { verifier, token in
            await verifier.verifyTransaction(token).map { _ in () }
        })
    }

    /// Verifies signed renewal info; `nil` when the token does not decode.
    package func verifyRenewalInfo(_ token: String) async -> VerificationResult<Product.SubscriptionInfo.RenewalInfo>? {
        await verify(token, decode: Product.SubscriptionInfo.RenewalInfo.init(token:), check: { verifier, token in
            await verifier.verifyRenewalInfo(token).map { _ in () }
        })
    }

    /// Verifies a signed app transaction; `nil` when the token does not decode.
    package func verifyAppTransaction(_ token: String) async -> VerificationResult<AppTransaction>? {
        await verify(token, decode: AppTransaction.init(token:), check: { verifier, token in
            await verifier.verifyAppTransaction(token).map { _ in () }
        })
    }

    private func verify<Value: SignedValue>(
        _ token: String, decode: (SignedToken) -> Value?,
        check: (JWSVerifier, String) async -> Result<Void, JWSVerificationFailure>
    ) async -> VerificationResult<Value>? {
        guard let parts = SignedToken(token), let value = decode(parts) else { return nil }
        if case .verification(let error) = simulatedFailure(for: .verification) {
            return .unverified(value, error.converted())
        }
        guard let verifier = try? await verifier() else { return .unverified(value, .invalidCertificateChain) }
        if case .failure(let failure) = await check(verifier, token) {
            return .unverified(value, Self.verificationError(failure))
        }
        let expected = DeviceVerification.value(nonce: value.deviceVerificationNonce, deviceVerificationID: environment.deviceID)
        guard value.deviceVerification == expected else { return .unverified(value, .invalidDeviceVerification) }
        return .verified(value)
    }

    /// The verifier trusting the store's roots, read from the store once.
    private func verifier() async throws -> JWSVerifier {
        let task = verifier.withLock { task in
            if let task { return task }
            let connection = environment.connection
            let made = Task { () async throws -> JWSVerifier in
                try JWSVerifier(rootCertificates: try await connection.rootCertificates())
            }
            task = made
            return made
        }
        do {
            return try await task.value
        } catch {
            // Let the next call ask the store again (it may have been unreachable).
            verifier.withLock { $0 = nil }
            throw error
        }
    }

    private static func verificationError<Value>(_ failure: JWSVerificationFailure) -> VerificationResult<Value>.VerificationError {
        // Compared with `==`: in a `switch`, `.invalidSignature` would also match `SKError.Code`'s `~=` for errors.
        if failure == .malformedToken || failure == .unsupportedAlgorithm { return .invalidEncoding }
        if failure == .invalidSignature { return .invalidSignature }
        if failure == .malformedPayload || failure == .missingSigningDate { return .missingRequiredProperties }
        return .invalidCertificateChain
    }

    // MARK: Simulated errors

    /// The APIs a test can make fail (`SKTestSession.setSimulatedError(_:forAPI:)`).
    package enum FailableAPI: Sendable, Hashable {
        case appStoreSync, appTransaction, loadProducts, manageSubscriptions, offerCodeRedeem, purchase, refundRequest
        case subscriptionStatus, verification
    }

    /// An error a test asked an API to fail with.
    package enum SimulatedFailure: Sendable {
        /// Throw this StoreKit error.
        case generic(StoreKitError)
        /// `Product.purchase` throws this purchase error.
        case purchase(Product.PurchaseError)
        /// `beginRefundRequest` throws this refund error.
        case refundRequest(Transaction.RefundRequestError)
        /// Signed data is unverified with this error.
        case verification(VerificationResult<Any>.VerificationError)

        var error: any Error {
            switch self {
            case .generic(let error): error
            case .purchase(let error): error
            case .refundRequest(let error): error
            case .verification(let error): error
            }
        }
    }

    /// Makes `api` fail with `failure` until it is cleared with `nil`.
    package func setSimulatedFailure(_ failure: SimulatedFailure?, for api: FailableAPI) {
        simulatedFailures.withLock { $0[api] = failure }
    }

    /// The failure `api` simulates, if any.
    package func simulatedFailure(for api: FailableAPI) -> SimulatedFailure? {
        simulatedFailures.withLock { $0[api] }
    }

    /// Throws the error `api` simulates, if a test set one.
    package func throwSimulatedFailure(for api: FailableAPI) throws {
        if let failure = simulatedFailure(for: api) { throw failure.error }
    }
}

/// What the customer does in the sheets StoreKit 2 shows, and which sheets the app showed. `SKTestSession` sets the
/// answers; an app process without a session gets the defaults: refunds are submitted and approved, other sheets
/// are dismissed.
package struct SheetAnswers: Sendable {
    /// What the customer does in the refund request sheet.
    package var refundRequest: RefundRequestAnswer = .submit(reason: "")
    /// The code the customer types into the offer-code redemption sheet; `nil` dismisses it.
    package var offerCode: String?
    /// The subscription groups the app showed the manage-subscriptions sheet for, oldest first (`""` for all groups).
    package var manageSubscriptionsShown: [String] = []
    /// The messages the app displayed, oldest first.
    package var messagesDisplayed: [Message.Reason] = []
    /// How many times the app asked for a rating or review (`AppStore.requestReview(in:)`).
    package var reviewRequestsShown = 0
    /// The disclosure notices the app showed (`ExternalPurchaseCustomLink.showNotice(type:)`), oldest first.
    package var externalPurchaseNoticesShown: [ExternalPurchaseCustomLink.NoticeType] = []
    /// The app's `SKExternalPurchaseLink` Info.plist key: a URL per lowercased ISO 3166-1 alpha-2 country code.
    package var externalPurchaseLink: [String: URL] = SheetAnswers.infoPlistLinks("SKExternalPurchaseLink").compactMapValues(\.first)
    /// The app's `SKExternalPurchaseMultiLink` Info.plist key: URLs per lowercased ISO 3166-1 alpha-2 country code.
    package var externalPurchaseMultiLink: [String: [URL]] = SheetAnswers.infoPlistLinks("SKExternalPurchaseMultiLink")
    /// The external purchase links the customer continued to, oldest first.
    package var externalPurchaseLinksOpened: [URL] = []

    /// The URLs of an Info.plist dictionary of country codes to a URL string or an array of them.
    static func infoPlistLinks(_ key: String) -> [String: [URL]] {
        guard let dictionary = Bundle.main.object(forInfoDictionaryKey: key) as? [String: Any] else { return [:] }
        return dictionary.compactMapValues { value in
            let strings = (value as? [String]) ?? (value as? String).map { [$0] } ?? []
            let urls = strings.compactMap(URL.init(string:))
            return urls.isEmpty ? nil : urls
        }
    }

    /// What the customer does in the refund request sheet.
    package enum RefundRequestAnswer: Sendable, Hashable {
        /// Submits the request with this text under "Other". The App Store approves it, unless the text is `REJECT`,
        /// which the sandbox declines.
        case submit(reason: String)
        /// Closes the sheet.
        case cancel
    }
}

extension StoreKitError {
    /// The StoreKit 2 error for a store refusal.
    init(_ error: StoreError) {
        switch error {
        case StoreError.storeUnreachable: self = .networkError(URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: error.message]))
        case StoreError.unknownStorefront: self = .notAvailableInStorefront
        default: self = .systemError(error)
        }
    }
}
