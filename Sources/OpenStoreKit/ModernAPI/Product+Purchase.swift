package import AppStoreEngine
public import Foundation

extension Product {
    /// What a purchase came to.
    public enum PurchaseResult: Sendable {
        /// The App Store completed the purchase; deliver the product, then finish the transaction.
        case success(VerificationResult<Transaction>)
        /// The customer cancelled.
        case userCancelled
        /// The purchase waits: for a parent's approval (Ask to Buy) or for the customer to resolve a billing issue.
        /// The transaction arrives through `Transaction.updates` if it completes.
        case pending
    }

    /// Why the App Store refused a purchase.
    public enum PurchaseError: Error, LocalizedError, Sendable, Hashable {
        /// The quantity is not between 1 and 10.
        case invalidQuantity
        /// The product is not for sale.
        case productUnavailable
        /// The customer may not make payments.
        case purchaseNotAllowed
        /// The customer is not eligible for the offer.
        case ineligibleForOffer
        /// The product has no offer with that identifier.
        case invalidOfferIdentifier
        /// The offer's price is not valid.
        case invalidOfferPrice
        /// The offer's signature is not valid.
        case invalidOfferSignature
        /// The offer lacks parameters.
        case missingOfferParameters

        /// What went wrong.
        public var errorDescription: String? {
            switch self {
            case .invalidQuantity: "The quantity must be between 1 and 10."
            case .productUnavailable: "The product is not available."
            case .purchaseNotAllowed: "This account may not make purchases."
            case .ineligibleForOffer: "The customer is not eligible for this offer."
            case .invalidOfferIdentifier: "The product has no offer with this identifier."
            case .invalidOfferPrice: "The offer's price is not valid."
            case .invalidOfferSignature: "The offer's signature is not valid."
            case .missingOfferParameters: "The offer is missing parameters."
            }
        }
    }

    /// Buys the product.
    ///
    /// - Returns: ``PurchaseResult/success(_:)`` with the signed transaction, ``PurchaseResult/pending`` while a
    ///   parent or a billing issue holds it, or ``PurchaseResult/userCancelled``.
    /// - Throws: ``PurchaseError`` when the App Store refuses the purchase (a quantity out of range, an offer that
    ///   does not check out, a restricted account), ``StoreKitError`` when it cannot be reached.
    @MainActor
    public func purchase(options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        let device = try StoreKitDevice.current()
        try device.throwSimulatedFailure(for: .purchase)
        let request = purchaseRequest(options: options, environment: device.environment)
        if let handler = options.lazy.compactMap(\.storefrontChangeHandler).first {
            try await checkStorefront(on: device, shouldContinue: handler)
        }
        return try await Self.result(of: request, on: device)
    }

    /// Sends `request` to the device's store and answers as ``purchase(options:)`` does.
    @MainActor
    static func result(of request: PurchaseRequest, on device: StoreKitDevice) async throws -> Product.PurchaseResult {
        let record: TransactionRecord
        do {
            record = try await device.environment.connection.purchase(request)
        } catch {
            throw Self.purchaseError(error)
        }
        switch record.state {
        case .purchased:
            guard let result = try await device.verifiedTransactions([record]).first else { throw StoreKitError.unknown }
            return .success(result)
        case .pendingApproval, .interrupted:
            return .pending
        case .declined:
            return .userCancelled
        case .failed(let code):
            if code == SKError.Code.paymentCancelled.rawValue { return .userCancelled }
            throw Self.purchaseError(SKError.Code(rawValue: code) ?? .unknown)
        }
    }

    /// Asks `shouldContinue` whether to go on when the customer's storefront is not the one the app last saw.
    ///
    /// - Throws: ``PurchaseError/productUnavailable`` when it says no, as the Original API fails such a payment with
    ///   `storeProductNotAvailable`.
    private func checkStorefront(on device: StoreKitDevice, shouldContinue: @Sendable (Storefront) -> Bool) async throws {
        let accountID = device.environment.accountID
        let current = try await device.call { connection throws(StoreError) in try await connection.account(accountID) }.storefront
        let previous = device.storefrontSeen.withLock { seen in
            defer { seen = current }
            return seen
        }
        guard let previous, previous != current, let storefront = Storefront(countryCode: current) else { return }
        if !shouldContinue(storefront) { throw PurchaseError.productUnavailable }
    }

    /// The store's request for this product and the options.
    package func purchaseRequest(options: Set<PurchaseOption>, environment: StoreEnvironment) -> PurchaseRequest {
        var request = PurchaseRequest(
            productID: id, accountID: environment.accountID, bundleID: environment.bundleID, deviceID: environment.deviceID
        )
        for option in options {
            switch option.kind {
            case .appAccountToken(let token): request.appAccountToken = token
            case .quantity(let quantity): request.quantity = quantity
            case .simulatesAskToBuy(let simulate): request.simulatesAskToBuy = simulate
            case .promotionalOffer(let offerID, let signature):
                request.offer = .promotional(
                    offerID: offerID, keyID: signature.keyID, nonce: signature.nonce, timestamp: Int64(signature.timestamp),
                    signature: signature.signature.base64EncodedString()
                )
            case .signedPromotionalOffer(_, let compactJWS): request.offer = .signedPromotional(compactJWS: compactJWS)
            case .winBackOffer(let offerID): request.offer = .winBack(offerID: offerID)
            case .codeOffer(let referenceName): request.offer = .code(referenceName)
            case .introductoryOfferEligibility(let compactJWS): request.introductoryOfferEligibility = compactJWS
            case .billingPlanType(let rawValue):
                request.billingPlanType = Product.SubscriptionInfo.BillingPlanType(rawValue: rawValue).appStore
            case .purchaseDate(let date, let behavior):
                request.purchaseDate = date
                request.renewalBehavior = switch behavior {
                case .renewUntilNow: .renewUntilNow
                case .cancelImmediately: .cancelImmediately
                }
            case .promotionalOfferID, .custom, .onStorefrontChange:
                break
            }
        }
        return request
    }

    /// The error `purchase` throws for a store refusal.
    static func purchaseError(_ error: StoreError) -> any Error {
        // `StoreError.` spelled out: a bare `.invalidOfferPrice` would also match `SKError.Code`'s `~=` for errors.
        switch error {
        case StoreError.unknownProduct: PurchaseError.productUnavailable
        case StoreError.invalidQuantity: PurchaseError.invalidQuantity
        case StoreError.paymentNotAllowed: PurchaseError.purchaseNotAllowed
        case StoreError.invalidOfferIdentifier: PurchaseError.invalidOfferIdentifier
        case StoreError.invalidOfferSignature: PurchaseError.invalidOfferSignature
        case StoreError.missingOfferParameters: PurchaseError.missingOfferParameters
        case StoreError.invalidOfferPrice: PurchaseError.invalidOfferPrice
        case StoreError.ineligibleForOffer: PurchaseError.ineligibleForOffer
        default: StoreKitError(error)
        }
    }

    /// The error `purchase` throws for a purchase the store failed with an `SKError` code (`failTransactionsEnabled`).
    static func purchaseError(_ code: SKError.Code) -> any Error {
        switch code {
        case .invalidOfferIdentifier: PurchaseError.invalidOfferIdentifier
        case .invalidSignature: PurchaseError.invalidOfferSignature
        case .missingOfferParams: PurchaseError.missingOfferParameters
        case .invalidOfferPrice: PurchaseError.invalidOfferPrice
        case .ineligibleForOffer: PurchaseError.ineligibleForOffer
        case .paymentNotAllowed: PurchaseError.purchaseNotAllowed
        case .storeProductNotAvailable: PurchaseError.productUnavailable
        case .cloudServiceNetworkConnectionFailed: StoreKitError.networkError(URLError(.notConnectedToInternet))
        default: StoreKitError.unknown
        }
    }
}
