public import AppStoreEngine
public import AppStoreFormats
public import Foundation
import Synchronization

/// Apple's deprecated `verifyReceipt` endpoint for one store: decodes an app receipt the store issued, checks it
/// and answers with the receipt and the account's latest purchases and renewal information.
///
/// ``StoreServer`` serves it at `POST /verifyReceipt` (Apple's production URL, `buy.itunes.apple.com`) and
/// `POST /sandbox/verifyReceipt` (the sandbox URL, `sandbox.itunes.apple.com`). Like Apple, it answers HTTP 200
/// with the outcome in `status`, checked in this order:
///
/// - 21000: the request is not a POST, or its body is not JSON;
/// - 21002: `receipt-data` is missing, or is not a base64 PKCS#7 receipt;
/// - 21003: the receipt's signature does not chain to the store's root (another authority signed it);
/// - 21007 / 21008: a sandbox receipt (`ProductionSandbox`, or an `Xcode` one) on the production path, or a
///   `Production` receipt on the sandbox path; the store's `environment` setting decides which receipts it issues;
/// - 21004: the app has a shared secret and `password` differs; an app without one accepts any password;
/// - 21010: the receipt lists purchases the store does not have (deleted, or from another store sharing the
///   authority), so its account is not found;
/// - 0: valid.
///
/// For a valid receipt the account is found from the purchases the receipt lists (see
/// `StoreEngine.receiptHolder(of:)`). When the account has auto-renewable subscriptions in the app, the answer also
/// carries `latest_receipt`, `latest_receipt_info` (every purchase of the current receipt, newest first, at most
/// 100; with `exclude-old-transactions` only the latest transaction of each subscription) and
/// `pending_renewal_info`, as Apple returns them only for such receipts.
public final class VerifyReceiptService: Sendable {
    /// The store whose receipts are checked.
    public let engine: StoreEngine
    /// The apps' shared secrets (`password`), by bundle identifier.
    public let sharedSecrets: [String: String]
    /// Made on first use, when the store's authority is loaded; it caches validated chains.
    private let verifier = Mutex<ReceiptVerifier?>(nil)

    /// The largest request body accepted, in bytes.
    public static let maximumRequestSize = 4 << 20

    /// Creates the endpoint for `engine`.
    ///
    /// - Parameters:
    ///   - engine: The store whose receipts are checked.
    ///   - sharedSecrets: The apps' shared secrets by bundle identifier; an app without one accepts any password.
    public init(engine: StoreEngine, sharedSecrets: [String: String] = [:]) {
        self.engine = engine
        self.sharedSecrets = sharedSecrets
    }

    /// Answers a `verifyReceipt` request body.
    ///
    /// - Parameters:
    ///   - body: The request's JSON body.
    ///   - environment: The path it came to: `.production` for `/verifyReceipt`, `.sandbox` for
    ///     `/sandbox/verifyReceipt`.
    public func respond(to body: Data, environment: AppStoreEnvironment) async -> VerifyReceiptResponse {
        await respond(to: VerifyReceiptBody(body), environment: environment)
    }

    /// Answers a decoded `verifyReceipt` request.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - environment: The path it came to: `.production` for `/verifyReceipt`, `.sandbox` for
    ///     `/sandbox/verifyReceipt`.
    public func respond(to request: VerifyReceiptRequest, environment: AppStoreEnvironment) async -> VerifyReceiptResponse {
        await respond(to: VerifyReceiptBody(request), environment: environment)
    }

    /// Answers a request whose body is already decoded and its receipt read (by the front door, to find the store).
    func respond(to body: VerifyReceiptBody, environment: AppStoreEnvironment) async -> VerifyReceiptResponse {
        guard let request = body.request else { return VerifyReceiptResponse(status: .malformedRequest) }
        guard let receiptData = request.receiptData, !receiptData.isEmpty, let unverified = body.receipt else {
            return VerifyReceiptResponse(status: .malformedReceiptData)
        }
        guard let verifier = receiptVerifier() else { return VerifyReceiptResponse(status: .internalDataAccessError) }
        let receipt: AppReceipt
        switch await verifier.verify(unverified) {
        case .success(let verified): receipt = verified
        case .failure(let failure):
            let malformed = failure == .malformedReceipt || failure == .malformedPayload
            return VerifyReceiptResponse(status: malformed ? .malformedReceiptData : .notAuthenticated)
        }
        let isProductionReceipt = receipt.receiptType == "Production" || receipt.receiptType == "ProductionVPP"
        if environment == .production, !isProductionReceipt { return VerifyReceiptResponse(status: .sandboxReceiptOnProduction) }
        if environment != .production, isProductionReceipt { return VerifyReceiptResponse(status: .productionReceiptOnSandbox) }
        if let secret = sharedSecrets[receipt.bundleID], request.password != secret {
            return VerifyReceiptResponse(status: .sharedSecretMismatch)
        }
        do {
            return try await validResponse(receipt, receiptData: receiptData, excludeOld: request.excludeOldTransactions ?? false, environment: environment)
        } catch {
            return VerifyReceiptResponse(status: error == .unknownTransaction ? .accountNotFound : .internalDataAccessError)
        }
    }

    private func receiptVerifier() -> ReceiptVerifier? {
        verifier.withLock { verifier in
            if let verifier { return verifier }
            let made = try? ReceiptVerifier(rootCertificates: engine.signer.certificateAuthority.rootCertificatesDER)
            verifier = made
            return made
        }
    }

    private func validResponse(
        _ receipt: AppReceipt, receiptData: String, excludeOld: Bool, environment: AppStoreEnvironment
    ) async throws(StoreError) -> VerifyReceiptResponse {
        var response = VerifyReceiptResponse(
            status: .valid, environment: environment == .production ? "Production" : "Sandbox",
            receipt: ReceiptInfo(receipt, requestDate: engine.clock.now())
        )
        guard let holder = try await engine.receiptHolder(of: receipt) else { return response }

        // `in_app` is what the receipt says; the fields receipts have no attribute for come from the store.
        response.receipt?.inApp = receipt.inAppPurchases.map { purchase in
            var info = InAppPurchaseInfo(purchase)
            if let record = UInt64(purchase.transactionID).flatMap({ holder.transactions[$0] }) {
                Self.addStoreFields(of: record, to: &info)
                if info.cancellationDate == nil { info.cancellationReason = nil }
            }
            return info
        }.sorted { ($0.purchaseDate ?? .distantPast, $0.transactionID) < ($1.purchaseDate ?? .distantPast, $1.transactionID) }

        let subscriptions = try await engine.subscriptions(accountID: holder.accountID, bundleID: receipt.bundleID)
        let latest = try await engine.latestAppReceipt(for: receipt, holder: holder)
        guard !subscriptions.isEmpty || latest.transactions.contains(where: { $0.productType == .autoRenewable }) else {
            return response
        }
        var transactions = latest.transactions.sorted { ($0.purchaseDate, $0.id) > ($1.purchaseDate, $1.id) }
        if excludeOld {
            var seen = Set<UInt64>()
            transactions = transactions.filter { $0.productType != .autoRenewable || seen.insert($0.originalID).inserted }
        }
        response.latestReceipt = latest.receipt.base64EncodedString()
        response.latestReceiptInfo = transactions.prefix(100).map(Self.info)
        response.pendingRenewalInfo = subscriptions.sorted { $0.id < $1.id }.map(Self.pendingRenewal)
        return response
    }

    /// A transaction as `latest_receipt_info` lists it.
    static func info(_ record: TransactionRecord) -> InAppPurchaseInfo {
        var info = InAppPurchaseInfo(quantity: String(record.quantity), productID: record.productID, transactionID: String(record.id), purchaseDate: record.purchaseDate)
        info.originalTransactionID = String(record.originalID)
        info.originalPurchaseDate = record.originalPurchaseDate
        info.isTrialPeriod = record.offer?.discountType == .freeTrial ? "true" : "false"
        if record.productType == .autoRenewable {
            info.expiresDate = record.expiresDate
            info.webOrderLineItemID = String(record.id)
            let introductory = record.offer.map { $0.type == .introductoryOffer && $0.discountType != .freeTrial } ?? false
            info.isInIntroOfferPeriod = introductory ? "true" : "false"
            if record.offer?.type == .promotionalOffer { info.promotionalOfferID = record.offer?.identifier }
        }
        info.cancellationDate = record.revocationDate
        addStoreFields(of: record, to: &info)
        return info
    }

    /// Adds the fields only the store knows: ownership, group, upgrade, offer code, refund reason, account token.
    private static func addStoreFields(of record: TransactionRecord, to info: inout InAppPurchaseInfo) {
        info.inAppOwnershipType = record.ownershipType.rawValue
        if record.productType == .autoRenewable {
            info.subscriptionGroupIdentifier = record.subscriptionGroupID
            if record.isUpgraded == true { info.isUpgraded = "true" }
            if record.offer?.type == .subscriptionOfferCode { info.offerCodeRefName = record.offer?.identifier }
        }
        if record.revocationDate != nil {
            info.cancellationReason = record.revocationReason == .refundedDueToIssue ? "1" : "0"
        }
        info.appAccountToken = record.appAccountToken?.uuidString.lowercased()
    }

    /// A subscription as `pending_renewal_info` lists it.
    static func pendingRenewal(_ subscription: SubscriptionRecord) -> PendingRenewalInfo {
        var info = PendingRenewalInfo(
            originalTransactionID: String(subscription.id), productID: subscription.productID,
            autoRenewProductID: subscription.autoRenewProductID, autoRenewStatus: subscription.autoRenewEnabled ? "1" : "0"
        )
        info.expirationIntent = subscription.expirationIntent.map { String($0.rawValue) }
        info.isInBillingRetryPeriod = subscription.isInBillingRetry ? "1" : "0"
        if subscription.status == .gracePeriod { info.gracePeriodExpiresDate = subscription.gracePeriodExpiresDate }
        switch subscription.priceIncrease {
        case .pending: info.priceConsentStatus = "0"
        case .agreed: info.priceConsentStatus = "1"
        case .declined, nil: break
        }
        // The offer that prices the next period, when the subscription renews into the same product.
        if subscription.autoRenewProductID == subscription.productID, let offer = subscription.nextPeriodOffer {
            switch offer.type {
            case .promotionalOffer: info.promotionalOfferID = offer.identifier
            case .subscriptionOfferCode: info.offerCodeRefName = offer.identifier
            default: break
            }
        }
        return info
    }
}
