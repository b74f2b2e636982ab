import AppStoreEngine
import AppStoreFormats
public import Foundation
public import OpenStoreKit
import StoreKitConfiguration

extension SKTestSession {
    /// Runs `body` with StoreKit 2's static API — `Product.products(for:)`, `Transaction.updates`,
    /// `AppStore.sync()` and the rest — bound to this session's store, for the current task and the tasks it
    /// creates (not detached ones). An OpenStoreKit addition: it lets tests of the modern API run in parallel, each
    /// on a store of its own, where a `.process` session would make them share one.
    public func run<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await StoreKitDevice.$bound.withValue(environment, operation: body)
    }

    private var device: StoreKitDevice { StoreKitDevice.of(environment) }

    /// Makes a StoreKit API fail with `error` until it is cleared with `nil`; only that API fails.
    ///
    /// ```swift
    /// try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .loadProducts)
    /// ```
    public func setSimulatedError<API: FailableStoreKitAPI>(_ error: API.Failure?, forAPI api: API) async throws {
        device.setSimulatedFailure(error.map { StoreKitDevice.SimulatedFailure($0) }, for: StoreKitDevice.FailableAPI(api))
        simulatedErrors.withLock { $0[StoreKitDevice.FailableAPI(api)] = error }
    }

    /// The error a StoreKit API is set to fail with, if any.
    public func simulatedError<API: FailableStoreKitAPI>(forAPI api: API) async -> API.Failure? {
        simulatedErrors.withLock { $0[StoreKitDevice.FailableAPI(api)] } as? API.Failure
    }

    /// Sets the simulated errors the configuration's `_storeKitErrors` turns on (Xcode's StoreKit Errors settings) and
    /// clears the others. An entry's `current` choice picks the error by its position in the error enum (`index`);
    /// an enabled entry without one fails with `StoreKitError.unknown`.
    func applyConfiguredSimulatedErrors() {
        let apis: [String: StoreKitDevice.FailableAPI] = [
            "Load Products": .loadProducts, "Purchase": .purchase, "Verification": .verification, "App Store Sync": .appStoreSync,
            "Subscription Status": .subscriptionStatus, "App Transaction": .appTransaction,
            "Manage Subscriptions Sheet": .manageSubscriptions, "Refund Request Sheet": .refundRequest,
            "Offer Code Redeem Sheet": .offerCodeRedeem,
        ]
        for api in apis.values { device.setSimulatedFailure(nil, for: api) }
        simulatedErrors.withLock { $0.removeAll() }
        for setting in configuration.settings.storeKitErrors where setting.enabled {
            guard let api = apis[setting.name] else { continue }
            device.setSimulatedFailure(Self.failure(setting.current), for: api)
        }
    }

    /// The failure an Xcode `_storeKitErrors` choice names: `type` is the `SKTestFailures` case, `index` the error's
    /// position in its enum.
    static func failure(_ choice: SimulatedErrorSetting.Choice?) -> StoreKitDevice.SimulatedFailure {
        guard let choice else { return .generic(.unknown) }
        switch choice.type {
        case "purchase":
            let errors: [Product.PurchaseError] = [
                .invalidQuantity, .productUnavailable, .purchaseNotAllowed, .ineligibleForOffer, .invalidOfferIdentifier,
                .invalidOfferPrice, .invalidOfferSignature, .missingOfferParameters,
            ]
            return errors.indices.contains(choice.index) ? .purchase(errors[choice.index]) : .generic(.unknown)
        case "verification":
            let errors: [VerificationResult<Any>.VerificationError] = [
                .revokedCertificate, .invalidCertificateChain, .invalidDeviceVerification, .invalidEncoding, .invalidSignature,
                .missingRequiredProperties,
            ]
            return .verification(errors.indices.contains(choice.index) ? errors[choice.index] : .invalidSignature)
        case "refundRequest":
            return .refundRequest(choice.index == 0 ? .duplicateRequest : .failed)
        default:
            let errors: [StoreKitError] = [
                .unknown, .userCancelled, .networkError(URLError(.notConnectedToInternet)),
                .systemError(SKTestError(.serviceUnavailable, message: "A simulated system error.")), .notAvailableInStorefront,
                .notEntitled, .unsupported,
            ]
            return .generic(errors.indices.contains(choice.index) ? errors[choice.index] : .unknown)
        }
    }

    /// Buys a product outside the app, as the customer would on another device, with StoreKit 2 purchase options:
    /// `appAccountToken`, `quantity`, `promotionalOffer(id:)` (signed by the session), the signed promotional
    /// offer options, `codeOffer(referenceName:)`, `winBackOffer` and `purchaseDate(_:renewalBehavior:)` (a purchase
    /// made in the past, with the renewals since, or cancelled at once). The app hears of it through
    /// `Transaction.updates` and its payment queue.
    ///
    /// - Returns: the transaction, signed for the session's device.
    /// - Throws: ``SKTestError`` `invalidProductIdentifier` when the store does not sell the product, `invalidAction`
    ///   when the purchase does not complete (Ask to Buy, an interrupted purchase) or an offer does not check out.
    @discardableResult
    public func buyProduct(identifier: Product.ID, options: Set<Product.PurchaseOption> = []) async throws -> Transaction {
        let product = try await run { try await Product.products(for: [identifier]) }.first
        guard let product else {
            throw SKTestError(.invalidProductIdentifier, message: "The store does not sell \(identifier). Check the product identifiers in the configuration.")
        }
        var request = product.purchaseRequest(options: options, environment: environment)
        request.deviceID = nil
        if let offerID = options.lazy.compactMap(\.promotionalOfferIdentifier).first {
            request.offer = try await signedPromotionalOffer(offerID, for: request)
        }
        let record: TransactionRecord
        do {
            record = try await engine.purchase(request)
        } catch {
            throw SKTestError(error)
        }
        guard record.state.isCompleted else {
            throw SKTestError(.invalidAction, message: "The purchase of \(identifier) did not complete: it is \(record.state).")
        }
        guard let result = try await device.verifiedTransactions([record]).first else {
            throw SKTestError(.invalidAction, message: "The store did not sign transaction \(record.id).")
        }
        return result.unsafePayloadValue
    }

    /// A promotional offer redemption signed with the session's own key, which the store learns on first use.
    private func signedPromotionalOffer(_ offerID: String, for request: PurchaseRequest) async throws -> OfferRedemption {
        let signer = PromotionalOfferSigner(privateKey: offerSigningKey, keyID: "SKTestSession", bundleID: request.bundleID)
        await engine.addPromotionalOfferKey(signer.key)
        let nonce = UUID()
        let timestamp = Int64(engine.clock.now().timeIntervalSince1970 * 1000)
        let signature = try signer.signV1(
            productID: request.productID, offerID: offerID, appAccountToken: request.appAccountToken?.uuidString.lowercased() ?? "",
            nonce: nonce, timestamp: timestamp
        )
        return .promotional(offerID: offerID, keyID: signer.keyID, nonce: nonce, timestamp: timestamp, signature: signature.signature)
    }

    // MARK: Sheets

    /// What the customer does in the refund request sheet `Transaction.beginRefundRequest` shows: submit (approved,
    /// unless the reason is `REJECT`, which declines as in the sandbox), or cancel. By default the customer submits.
    /// While ``SKTestSession/refundRequestsAwaitDecision`` is on, a submitted request waits and a reason that is one of
    /// Apple's `consumptionRequestReason` values (`UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`, …) is the one
    /// `CONSUMPTION_REQUEST` carries (`OTHER` otherwise). An OpenStoreKit addition: there is no screen to tap.
    public var refundRequestSheetAnswer: RefundRequestSheetAnswer {
        get {
            switch device.sheets.withLock({ $0.refundRequest }) {
            case .submit(let reason): .submit(reason: reason)
            case .cancel: .cancel
            }
        }
        set {
            let answer: SheetAnswers.RefundRequestAnswer = switch newValue {
            case .submit(let reason): .submit(reason: reason)
            case .cancel: .cancel
            }
            device.sheets.withLock { $0.refundRequest = answer }
        }
    }

    /// What the customer does in a refund request sheet.
    public enum RefundRequestSheetAnswer: Sendable, Hashable {
        /// Submits the request with this reason. `REJECT` makes the App Store decline it; anything else is approved.
        case submit(reason: String)
        /// Closes the sheet without submitting.
        case cancel
    }

    /// The code the customer types into the sheet `AppStore.presentOfferCodeRedeemSheet(in:)` shows; `nil` closes it.
    /// An OpenStoreKit addition.
    public var offerCodeRedeemSheetEntry: String? {
        get { device.sheets.withLock { $0.offerCode } }
        set { device.sheets.withLock { $0.offerCode = newValue } }
    }

    /// The subscription groups the app showed the manage-subscriptions sheet for, oldest first; `""` stands for the
    /// sheet of every group. An OpenStoreKit addition.
    public var manageSubscriptionsSheetsShown: [String] {
        device.sheets.withLock { $0.manageSubscriptionsShown }
    }

    /// The reasons of the messages the app displayed with `Message.display(in:)`, oldest first. An OpenStoreKit
    /// addition.
    public var messagesDisplayed: [Message.Reason] {
        device.sheets.withLock { $0.messagesDisplayed }
    }

    /// How many times the app asked for a rating or review with `AppStore.requestReview(in:)`; as in development on
    /// iOS, every request shows the prompt. An OpenStoreKit addition.
    public var reviewRequestsShown: Int {
        device.sheets.withLock { $0.reviewRequestsShown }
    }

    /// The app's `SKExternalPurchaseLink` Info.plist key, which `ExternalPurchaseLink.canOpen` and `open()` read: a
    /// URL per lowercased ISO 3166-1 alpha-2 country code (`"fr"`). By default the main bundle's. An OpenStoreKit
    /// addition.
    public var externalPurchaseLink: [String: URL] {
        get { device.sheets.withLock { $0.externalPurchaseLink } }
        set { device.sheets.withLock { $0.externalPurchaseLink = newValue } }
    }

    /// The app's `SKExternalPurchaseMultiLink` Info.plist key, which `ExternalPurchaseLink.eligibleURLs` and
    /// `open(url:)` read: URLs per lowercased ISO 3166-1 alpha-2 country code. By default the main bundle's. An
    /// OpenStoreKit addition.
    public var externalPurchaseMultiLink: [String: [URL]] {
        get { device.sheets.withLock { $0.externalPurchaseMultiLink } }
        set { device.sheets.withLock { $0.externalPurchaseMultiLink = newValue } }
    }

    /// The external purchase links the customer continued to with `ExternalPurchaseLink.open()` or `open(url:)`,
    /// oldest first. An OpenStoreKit addition.
    public var externalPurchaseLinksOpened: [URL] {
        device.sheets.withLock { $0.externalPurchaseLinksOpened }
    }

    /// The disclosure notices the app showed with `ExternalPurchaseCustomLink.showNotice(type:)`, oldest first. An
    /// OpenStoreKit addition.
    public var externalPurchaseNoticesShown: [ExternalPurchaseCustomLink.NoticeType] {
        device.sheets.withLock { $0.externalPurchaseNoticesShown }
    }
}
