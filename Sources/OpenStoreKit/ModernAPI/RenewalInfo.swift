import AppStoreFormats
public import Foundation

extension Product.SubscriptionInfo {
    /// What happens to an auto-renewable subscription at the end of its period, as the App Store signed it.
    public struct RenewalInfo: Equatable, Hashable, Sendable, CustomDebugStringConvertible {
        /// The subscription's original transaction.
        public let originalTransactionID: UInt64
        /// The product the customer subscribes to now.
        public let currentProductID: String
        /// Whether the subscription renews at the end of the period.
        public let willAutoRenew: Bool
        /// The product it renews into (another level of the group after a change).
        public let autoRenewPreference: String?
        /// Why the subscription expired, once it did.
        public let expirationReason: ExpirationReason?
        /// Whether the App Store is trying to bill a failed renewal.
        public let isInBillingRetry: Bool
        /// When the grace period of a failed renewal ends.
        public let gracePeriodExpirationDate: Date?
        /// Whether a price increase waits for the customer's consent.
        public let priceIncreaseStatus: PriceIncreaseStatus
        /// The offer that prices the next renewal, if any.
        public let offer: Transaction.Offer?
        /// The win-back offers the customer may redeem.
        public let eligibleWinBackOfferIDs: [String]
        /// The server environment that signed the renewal info.
        public let environment: AppStore.Environment
        /// When the App Store signed this copy.
        public let signedDate: Date
        /// The hash that ties the renewal info to the device it was signed for.
        public let deviceVerification: Data
        /// The nonce hashed into ``deviceVerification``.
        public let deviceVerificationNonce: UUID
        /// When the current run of uninterrupted periods began.
        public let recentSubscriptionStartDate: Date
        /// When the subscription renews (or expires); `nil` once it expired.
        public let renewalDate: Date?
        /// The price of the next renewal, in ``currency``.
        public let renewalPrice: Decimal?
        /// The UUID the app attached to the subscription's purchase.
        public let appAccountToken: UUID?
        /// The app download's transaction identifier.
        public let appTransactionID: String
        /// The billing plan of the next renewal, for a product that has billing plans.
        public let renewalBillingPlanType: Product.SubscriptionInfo.BillingPlanType?
        /// For a subscription billed monthly with a 12-month commitment: what happens when the commitment ends.
        public let commitmentInfo: Product.SubscriptionInfo.RenewalInfo.CommitmentInfo?
        /// For a subscription bought with the Advanced Commerce API: the items it renews with, as the signed renewal
        /// information's `advancedCommerceInfo` lists them; `nil` for any other subscription.
        public let advancedCommerceInfo: Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo?
        private let currencyIdentifier: String?
        let token: SignedToken

        /// The currency of ``renewalPrice``.
        public var currency: Locale.Currency? { currencyIdentifier.map { Locale.Currency($0) } }

        /// The signed payload, as JSON.
        public var jsonRepresentation: Data { token.payload }

        /// The signed payload.
        public var debugDescription: String { String(decoding: token.payload, as: UTF8.self) }

        init?(token: SignedToken) {
            guard let payload = try? AppStoreJSON.decode(JWSRenewalInfoDecodedPayload.self, from: token.payload),
                  let originalID = payload.originalTransactionId.flatMap({ UInt64($0) }), let productID = payload.productId,
                  let signedDate = payload.signedDate
            else { return nil }
            originalTransactionID = originalID
            currentProductID = productID
            willAutoRenew = payload.rawAutoRenewStatus == 1
            autoRenewPreference = payload.autoRenewProductId
            expirationReason = payload.rawExpirationIntent.map { ExpirationReason(rawValue: Int($0)) }
            isInBillingRetry = payload.isInBillingRetryPeriod ?? false
            gracePeriodExpirationDate = payload.gracePeriodExpiresDate
            priceIncreaseStatus = switch payload.rawPriceIncreaseStatus {
            case 0: .pending
            case 1: .agreed
            default: .noIncreasePending
            }
            offer = payload.rawOfferType.map { type in
                Transaction.Offer(
                    id: payload.offerIdentifier, type: Transaction.OfferType(rawValue: Int(type)),
                    paymentMode: payload.rawOfferDiscountType.map { Transaction.Offer.PaymentMode(rawValue: $0) },
                    period: payload.offerPeriod.flatMap(Product.SubscriptionPeriod.init(iso8601:))
                )
            }
            eligibleWinBackOfferIDs = payload.eligibleWinBackOfferIds ?? []
            environment = AppStore.Environment(rawValue: payload.rawEnvironment ?? AppStore.Environment.sandbox.rawValue)
            self.signedDate = signedDate
            deviceVerification = payload.deviceVerification.flatMap { Data(base64Encoded: $0) } ?? Data()
            deviceVerificationNonce = payload.deviceVerificationNonce ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            recentSubscriptionStartDate = payload.recentSubscriptionStartDate ?? signedDate
            renewalDate = payload.renewalDate
            renewalPrice = payload.renewalPrice.map { Decimal($0) / 1000 }
            appAccountToken = payload.appAccountToken
            appTransactionID = payload.appTransactionId ?? ""
            renewalBillingPlanType = payload.renewalBillingPlanType.map(Product.SubscriptionInfo.BillingPlanType.init(appStore:))
            commitmentInfo = payload.commitmentInfo.flatMap { info in
                guard let date = info.commitmentRenewalDate, let productID = info.commitmentAutoRenewProductId else { return nil }
                return CommitmentInfo(
                    renewalDate: date, renewalPrice: info.commitmentRenewalPrice.map { Decimal($0) / 1000 } ?? 0,
                    willAutoRenew: info.rawCommitmentAutoRenewStatus == 1, autoRenewPreference: productID,
                    renewalBillingPlanType: Product.SubscriptionInfo.BillingPlanType(appStore: info.commitmentRenewalBillingPlanType ?? "MONTHLY")
                )
            }
            currencyIdentifier = payload.currency
            advancedCommerceInfo = payload.advancedCommerceInfo.flatMap(AdvancedCommerceInfo.init)
            self.token = token
        }

        /// Why a subscription expired. Raw values are the App Store's `expirationIntent`.
        public struct ExpirationReason: RawRepresentable, Hashable, Sendable {
            /// The customer turned auto-renew off.
            public static let autoRenewDisabled = ExpirationReason(rawValue: 1)
            /// Billing failed.
            public static let billingError = ExpirationReason(rawValue: 2)
            /// The customer did not consent to a price increase.
            public static let didNotConsentToPriceIncrease = ExpirationReason(rawValue: 3)
            /// The product was no longer for sale at renewal.
            public static let productUnavailable = ExpirationReason(rawValue: 4)
            /// Another reason.
            public static let unknown = ExpirationReason(rawValue: 5)
            /// The App Store's number.
            public let rawValue: Int
            /// A reason by its App Store number.
            public init(rawValue: Int) { self.rawValue = rawValue }
            /// The reason in words.
            public var localizedDescription: String {
                switch rawValue {
                case 1: "Auto-renew disabled"
                case 2: "Billing error"
                case 3: "Did not consent to price increase"
                case 4: "Product unavailable"
                default: "Unknown"
                }
            }
        }

        /// Whether a price increase waits for the customer's consent.
        @frozen public enum PriceIncreaseStatus: Sendable, Hashable {
            /// No price increase is pending.
            case noIncreasePending
            /// The customer has not answered a price increase yet.
            case pending
            /// The customer agreed to the price increase.
            case agreed
        }
    }
}

extension Product.SubscriptionInfo.RenewalInfo: SignedValue {
    package var signedToken: SignedToken { token }
}
