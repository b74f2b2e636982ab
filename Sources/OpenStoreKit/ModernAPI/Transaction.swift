import AppStoreEngine
import AppStoreFormats
public import Foundation

/// A purchase the App Store signed: a product bought, renewed, shared by a family member, refunded.
///
/// Transactions come wrapped in a ``VerificationResult``: from ``Product/purchase(options:)``, ``updates``,
/// ``currentEntitlements``, ``all`` and ``latest(for:)``. Call ``finish()`` once the app delivered the product.
public struct Transaction: Equatable, Hashable, Sendable, CustomDebugStringConvertible {
    /// The transaction's identifier.
    public let id: UInt64
    /// The identifier of the original purchase (the first period of a subscription).
    public let originalID: UInt64
    /// The identifier of a subscription purchase or renewal across devices; `nil` for other products.
    public let webOrderLineItemID: String?
    /// The product bought.
    public let productID: String
    /// The subscription group of an auto-renewable subscription.
    public let subscriptionGroupID: String?
    /// The app's bundle identifier.
    public let appBundleID: String
    /// The UUID the app attached to the purchase with `Product.PurchaseOption.appAccountToken(_:)`.
    public let appAccountToken: UUID?
    /// When the App Store charged the customer (or renewed the subscription).
    public let purchaseDate: Date
    /// When the original purchase happened.
    public let originalPurchaseDate: Date
    /// When the subscription period this transaction paid for ends; `nil` for other products.
    public let expirationDate: Date?
    /// When the App Store signed this copy of the transaction.
    public let signedDate: Date
    /// When the App Store refunded or revoked the transaction.
    public let revocationDate: Date?
    /// Why the App Store refunded or revoked the transaction.
    public let revocationReason: Transaction.RevocationReason?
    /// The kind of product.
    public let productType: Product.ProductType
    /// How many were bought.
    public let purchasedQuantity: Int
    /// Whether the customer upgraded to a higher level of the subscription group during this period.
    public let isUpgraded: Bool
    /// Whether the customer bought the product or a family member shares it.
    public let ownershipType: Transaction.OwnershipType
    /// The subscription offer that priced the transaction, if any.
    public let offer: Transaction.Offer?
    /// The server environment that signed the transaction.
    public let environment: AppStore.Environment
    /// Why the transaction exists: a purchase or a renewal.
    public let reason: Transaction.Reason
    /// The storefront the purchase was made in.
    public let storefront: Storefront
    /// The hash that ties the transaction to the device it was signed for.
    public let deviceVerification: Data
    /// The nonce hashed into ``deviceVerification``.
    public let deviceVerificationNonce: UUID
    /// The price the customer paid for all units, in ``currency``; `nil` when unknown.
    public let price: Decimal?
    /// The app download's transaction identifier, the same for every purchase of the account in the app.
    public let appTransactionID: String
    /// The billing plan that billed an auto-renewable subscription whose product has billing plans.
    public let billingPlanType: Product.SubscriptionInfo.BillingPlanType?
    /// For a monthly billing: where it stands in its 12-month commitment.
    public let commitmentInfo: Transaction.CommitmentInfo?
    /// How the App Store refunded or revoked the transaction (a full or prorated refund, a Family Sharing
    /// revocation); `nil` for a transaction that was not revoked.
    public let revocationType: Transaction.RevocationType?
    /// For a purchase made with the Advanced Commerce API (``AdvancedCommerceProduct``): the items it sold, as the
    /// signed transaction's `advancedCommerceInfo` lists them; `nil` for any other purchase.
    public let advancedCommerceInfo: Transaction.AdvancedCommerceInfo?
    private let currencyIdentifier: String?
    let token: SignedToken

    /// The currency of ``price``.
    public var currency: Locale.Currency? { currencyIdentifier.map { Locale.Currency($0) } }

    /// The signed payload, as JSON.
    public var jsonRepresentation: Data { token.payload }

    /// A summary for debugging.
    public var debugDescription: String {
        String(decoding: token.payload, as: UTF8.self)
    }

    /// Decodes a signed transaction; `nil` when the payload lacks an identifier, the product, the app or the dates.
    init?(token: SignedToken) {
        guard let payload = try? AppStoreJSON.decode(JWSTransactionDecodedPayload.self, from: token.payload),
              let id = payload.transactionId.flatMap({ UInt64($0) }),
              let productID = payload.productId, let bundleID = payload.bundleId,
              let purchaseDate = payload.purchaseDate, let signedDate = payload.signedDate,
              let rawType = payload.rawType
        else { return nil }
        self.id = id
        originalID = payload.originalTransactionId.flatMap { UInt64($0) } ?? id
        webOrderLineItemID = payload.webOrderLineItemId
        self.productID = productID
        subscriptionGroupID = payload.subscriptionGroupIdentifier
        appBundleID = bundleID
        appAccountToken = payload.appAccountToken
        self.purchaseDate = purchaseDate
        originalPurchaseDate = payload.originalPurchaseDate ?? purchaseDate
        expirationDate = payload.expiresDate
        self.signedDate = signedDate
        revocationDate = payload.revocationDate
        revocationReason = payload.rawRevocationReason.map { RevocationReason(rawValue: Int($0)) }
        revocationType = payload.rawRevocationType.map(RevocationType.init(rawValue:))
        productType = Product.ProductType(rawValue: rawType)
        purchasedQuantity = Int(payload.quantity ?? 1)
        isUpgraded = payload.isUpgraded ?? false
        ownershipType = OwnershipType(rawValue: payload.rawInAppOwnershipType ?? OwnershipType.purchased.rawValue)
        offer = payload.rawOfferType.map { type in
            Offer(
                id: payload.offerIdentifier, type: OfferType(rawValue: Int(type)),
                paymentMode: payload.rawOfferDiscountType.map { Offer.PaymentMode(rawValue: $0) },
                period: payload.offerPeriod.flatMap(Product.SubscriptionPeriod.init(iso8601:))
            )
        }
        environment = AppStore.Environment(rawValue: payload.rawEnvironment ?? AppStore.Environment.sandbox.rawValue)
        reason = Reason(rawValue: payload.rawTransactionReason ?? Reason.purchase.rawValue)
        storefront = Storefront(id: payload.storefrontId ?? "", countryCode: payload.storefront ?? "")
        deviceVerification = payload.deviceVerification.flatMap { Data(base64Encoded: $0) } ?? Data()
        deviceVerificationNonce = payload.deviceVerificationNonce ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        price = payload.price.map { Decimal($0) / 1000 }
        currencyIdentifier = payload.currency
        appTransactionID = payload.appTransactionId ?? ""
        billingPlanType = payload.billingPlanType.map(Product.SubscriptionInfo.BillingPlanType.init(appStore:))
        commitmentInfo = payload.commitmentInfo.flatMap { info in
            guard let number = info.billingPeriodNumber, let total = info.totalBillingPeriods,
                  let expires = info.commitmentExpiresDate, let price = info.commitmentPrice else { return nil }
            return CommitmentInfo(
                expirationDate: expires, billingPeriodNumber: UInt64(max(number, 0)), totalBillingPeriods: UInt64(max(total, 0)),
                price: Decimal(price) / 1000
            )
        }
        advancedCommerceInfo = payload.advancedCommerceInfo.flatMap(AdvancedCommerceInfo.init)
        self.token = token
    }

    /// Tells the App Store the app delivered the purchase: the transaction leaves ``unfinished`` and the payment
    /// queue, and a consumable leaves ``all``.
    public func finish() async {
        guard let device = try? StoreKitDevice.current() else { return }
        let deviceID = device.environment.deviceID
        _ = try? await device.call { connection throws(StoreError) in try await connection.finish(transactionID: id, deviceID: deviceID) }
    }

    /// The status of the auto-renewable subscription the transaction belongs to; `nil` for other products.
    public var subscriptionStatus: Product.SubscriptionInfo.Status? {
        get async {
            guard productType == .autoRenewable, let device = try? StoreKitDevice.current() else { return nil }
            return try? await device.subscriptionStatuses(originalID: originalID).first
        }
    }
}

extension Transaction: SignedValue {
    package var signedToken: SignedToken { token }
}

extension Transaction {
    /// Whether the customer bought the product or a family member shares it. Raw values are the App Store's.
    public struct OwnershipType: RawRepresentable, Hashable, Sendable {
        /// The customer bought it.
        public static let purchased = OwnershipType(rawValue: "PURCHASED")
        /// A family member shares it through Family Sharing.
        public static let familyShared = OwnershipType(rawValue: "FAMILY_SHARED")
        /// The App Store's name.
        public let rawValue: String
        /// An ownership type by its App Store name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The type in words.
        public var localizedDescription: String { self == .familyShared ? "Family Shared" : "Purchased" }
    }

    /// How the App Store refunded or revoked a transaction. Raw values are the App Store's `revocationType`; a value
    /// Apple adds later reads as a type of that raw value.
    public struct RevocationType: RawRepresentable, Hashable, Sendable {
        /// The App Store refunded the whole price.
        public static let fullRefund = RevocationType(rawValue: "REFUND_FULL")
        /// The App Store refunded part of the price, by what the customer consumed.
        public static let proratedRefund = RevocationType(rawValue: "REFUND_PRORATED")
        /// The purchaser's Family Sharing revocation took the transaction from a family member.
        public static let familyRevocation = RevocationType(rawValue: "FAMILY_REVOKE")
        /// The App Store's name.
        public let rawValue: String
        /// A revocation type by its App Store name.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// Why the App Store refunded or revoked a transaction. Raw values are the App Store's.
    public struct RevocationReason: RawRepresentable, Hashable, Sendable {
        /// An issue in the app.
        public static let developerIssue = RevocationReason(rawValue: 1)
        /// Another reason.
        public static let other = RevocationReason(rawValue: 0)
        /// The App Store's number.
        public let rawValue: Int
        /// A reason by its App Store number.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The reason in words.
        public var localizedDescription: String { self == .developerIssue ? "Developer issue" : "Other" }
    }

    /// Why a transaction exists. Raw values are the App Store's.
    public struct Reason: RawRepresentable, Hashable, Sendable {
        /// The customer bought the product.
        public static let purchase = Reason(rawValue: "PURCHASE")
        /// An auto-renewable subscription renewed.
        public static let renewal = Reason(rawValue: "RENEWAL")
        /// The App Store's name.
        public let rawValue: String
        /// A reason by its App Store name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The reason in words.
        public var localizedDescription: String { self == .renewal ? "Renewal" : "Purchase" }
    }

    /// The kind of subscription offer that priced a transaction. Raw values are the App Store's.
    public struct OfferType: RawRepresentable, Hashable, Sendable {
        /// An introductory offer.
        public static let introductory = OfferType(rawValue: 1)
        /// A promotional offer.
        public static let promotional = OfferType(rawValue: 2)
        /// An offer code.
        public static let code = OfferType(rawValue: 3)
        /// A win-back offer.
        public static var winBack: OfferType { OfferType(rawValue: 4) }
        /// The App Store's number.
        public let rawValue: Int
        /// An offer type by its App Store number.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The type in words.
        public var localizedDescription: String {
            switch rawValue {
            case 1: "Introductory offer"
            case 2: "Promotional offer"
            case 3: "Offer code"
            case 4: "Win-back offer"
            default: "Offer"
            }
        }
    }

    /// The subscription offer that priced a transaction.
    public struct Offer: Hashable, Sendable {
        /// The offer's identifier; `nil` for an introductory offer.
        public let id: String?
        /// The kind of offer.
        public let type: Transaction.OfferType
        /// How the customer pays during the offer.
        public let paymentMode: Transaction.Offer.PaymentMode?
        /// How long the offer lasts.
        public let period: Product.SubscriptionPeriod?

        /// How the customer pays during an offer. Raw values are the App Store's.
        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            /// Free for the offer's duration.
            public static let freeTrial = PaymentMode(rawValue: "FREE_TRIAL")
            /// A reduced price each period.
            public static let payAsYouGo = PaymentMode(rawValue: "PAY_AS_YOU_GO")
            /// One reduced payment up front.
            public static let payUpFront = PaymentMode(rawValue: "PAY_UP_FRONT")
            /// A one-time payment: an offer on a consumable, non-consumable or non-renewing subscription.
            public static var oneTime: PaymentMode { PaymentMode(rawValue: "ONE_TIME") }
            /// The App Store's name.
            public let rawValue: String
            /// A payment mode by its App Store name.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The mode in words.
            public var localizedDescription: String {
                switch self {
                case .freeTrial: "Free trial"
                case .payUpFront: "Pay up front"
                case .oneTime: "One time"
                default: "Pay as you go"
                }
            }
        }
    }

    /// What became of a refund request.
    public enum RefundRequestStatus: Sendable, Hashable {
        /// The customer submitted the request; the App Store approves or declines it later.
        case success
        /// The customer closed the sheet without submitting.
        case userCancelled
    }

    /// Why a refund request could not be made.
    public enum RefundRequestError: Error, LocalizedError, Sendable, Hashable {
        /// The customer already asked for a refund of this transaction.
        case duplicateRequest
        /// The request failed.
        case failed

        /// What went wrong.
        public var errorDescription: String? {
            switch self {
            case .duplicateRequest: "A refund of this transaction was already requested."
            case .failed: "The refund request failed."
            }
        }
    }
}
