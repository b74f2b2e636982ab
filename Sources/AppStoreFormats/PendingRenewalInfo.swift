public import Foundation

/// What will happen at the end of an auto-renewable subscription's period, as `verifyReceipt` describes it: an
/// element of `pending_renewal_info`, one per subscription.
///
/// Every scalar is a string on the wire (`"auto_renew_status": "1"`); the grace period's end is written three
/// times, as `grace_period_expires_date`, `…_ms` and `…_pst`.
public struct PendingRenewalInfo: Codable, Hashable, Sendable {
    /// `original_transaction_id`: identifies the subscription.
    public var originalTransactionID: String
    /// `product_id`: the product of the current period.
    public var productID: String
    /// `auto_renew_product_id`: the product the subscription renews into.
    public var autoRenewProductID: String
    /// `auto_renew_status`: `"1"` when the subscription renews, `"0"` when the customer turned renewal off.
    public var autoRenewStatus: String
    /// `expiration_intent`: why the subscription expired, `"1"` to `"5"` (see `ExpirationIntent`).
    public var expirationIntent: String?
    /// `is_in_billing_retry_period`: `"1"` while the App Store retries a failed renewal, else `"0"`.
    public var isInBillingRetryPeriod: String?
    /// `grace_period_expires_date`: when the billing grace period ends, during one.
    public var gracePeriodExpiresDate: Date?
    /// `price_consent_status`: `"0"` while the customer has not answered a price increase, `"1"` once they consented.
    public var priceConsentStatus: String?
    /// `promotional_offer_id`: the promotional offer that prices the next period.
    public var promotionalOfferID: String?
    /// `offer_code_ref_name`: the reference name of the offer code that prices the next period.
    public var offerCodeRefName: String?

    /// Creates an entry with the fields every subscription has; set the others as they apply.
    public init(originalTransactionID: String, productID: String, autoRenewProductID: String, autoRenewStatus: String) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
    }

    /// Decodes an entry; the grace period's end is read from its `_ms` twin.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyJSONKey.self)
        self.init(
            originalTransactionID: try container.string("original_transaction_id") ?? "", productID: try container.string("product_id") ?? "",
            autoRenewProductID: try container.string("auto_renew_product_id") ?? "", autoRenewStatus: try container.string("auto_renew_status") ?? ""
        )
        expirationIntent = try container.string("expiration_intent")
        isInBillingRetryPeriod = try container.string("is_in_billing_retry_period")
        gracePeriodExpiresDate = try container.date("grace_period_expires_date")
        priceConsentStatus = try container.string("price_consent_status")
        promotionalOfferID = try container.string("promotional_offer_id")
        offerCodeRefName = try container.string("offer_code_ref_name")
    }

    /// Encodes the entry with Apple's keys, leaving out fields that are not set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyJSONKey.self)
        try container.encode(autoRenewProductID, "auto_renew_product_id")
        try container.encode(autoRenewStatus, "auto_renew_status")
        try container.encode(expirationIntent, "expiration_intent")
        try container.encodeDate(gracePeriodExpiresDate, "grace_period_expires_date")
        try container.encode(isInBillingRetryPeriod, "is_in_billing_retry_period")
        try container.encode(offerCodeRefName, "offer_code_ref_name")
        try container.encode(originalTransactionID, "original_transaction_id")
        try container.encode(priceConsentStatus, "price_consent_status")
        try container.encode(productID, "product_id")
        try container.encode(promotionalOfferID, "promotional_offer_id")
    }
}
